import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "~": fileURLToPath(new URL("./app", import.meta.url)) };

/**
 * Five lanes: `unit` runs the app's modules in-process (seconds, no build, no program but Node; `npm run test:unit`
 * runs two files at a time in processes they share, so a file puts back what it patches); `prometheus` checks the
 * shipped Prometheus configuration and rules with promtool, and the dashboard's panels;
 * `server` starts the built server as `npm start` does, with redis-server,
 * nginx and Java where a suite needs them; `engines` signs up in Chromium,
 * Firefox and WebKit against the built server; `container` runs the image, the compose stack and the README on a
 * bare machine through a Docker engine, one file per npm script.
 */
export default defineConfig({
  test: {
    projects: [
      { resolve: { alias }, test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node" } },
      {
        resolve: { alias },
        test: {
          name: "prometheus",
          include: ["tests/prometheus/**/*.test.ts"],
          environment: "node",
          // A hang's bound, not a speed: promtool's whole case file took over 30 s on loaded cores.
          testTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "server",
          include: ["tests/server/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "engines",
          include: ["tests/engines/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "container",
          include: ["tests/container/**/*.test.ts"],
          environment: "node",
          // Bounds on a hang, not speeds: an image built from a clean context, a stack brought up with its builds, a
          // bare machine installing every tool, a stack of nine containers taken down.
          testTimeout: 900_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
