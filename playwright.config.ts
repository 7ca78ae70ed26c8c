import { defineConfig } from "@playwright/test";
import { SERVE_COMMAND } from "./tests/harness/app-server";
import { chromiumFlags, chromiumPath } from "./tests/harness/chromium";
import { APP_ORIGIN, APP_PORT, STAND_IN_ORIGIN } from "./tests/support/ports";
import { SITEVERIFY_PATH, WEBHOOK_PATH } from "./tests/harness/stand-in";

export const chromiumLaunchOptions = { executablePath: chromiumPath, args: chromiumFlags };

export default defineConfig({
  testDir: "tests/e2e",
  // One app server and one stand-in are shared: tests run one at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  reporter: [["list"]],
  globalSetup: "./tests/support/global-setup.ts",
  use: {
    baseURL: APP_ORIGIN,
    browserName: "chromium",
    launchOptions: chromiumLaunchOptions,
    locale: "pt-BR",
    trace: "retain-on-failure",
  },
  webServer: {
    command: SERVE_COMMAND.map((part) => JSON.stringify(part)).join(" "),
    url: `${APP_ORIGIN}/healthz`,
    reuseExistingServer: false,
    timeout: 30_000,
    env: {
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(APP_PORT),
      WEBHOOK_URL: STAND_IN_ORIGIN + WEBHOOK_PATH,
      WEBHOOK_TIMEOUT_MS: "1500",
      HCAPTCHA_SECRET: "0x0000000000000000000000000000000000000000",
      HCAPTCHA_VERIFY_URL: STAND_IN_ORIGIN + SITEVERIFY_PATH,
      HCAPTCHA_VERIFY_TIMEOUT_MS: "1500",
      SIGNUP_SECRET: "e2e-signing-secret-0123456789abcdef",
      // People in a browser test type faster than people: the minimum time has unit tests of its own.
      SIGNUP_MIN_SUBMIT_MS: "0",
      // Every visitor of the suite comes from 127.0.0.1: one client, as far as the limit can tell.
      RATE_LIMIT_PER_MINUTE: "100000",
    },
  },
});
