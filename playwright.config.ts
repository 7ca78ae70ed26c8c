import { defineConfig } from "@playwright/test";
import { SERVE_COMMAND, serveEnv } from "./tests/harness/app-server";
import { chromiumFlags, chromiumPath } from "./tests/harness/chromium";
import { APP_ORIGIN, APP_PORT, E2E_METRICS_TOKEN, E2E_SIGNUP_SECRET, STAND_IN_ORIGIN } from "./tests/e2e/support/ports";
import { SITEVERIFY_PATH, WEBHOOK_PATH } from "./tests/harness/stand-in";

export default defineConfig({
  testDir: "tests/e2e",
  // One app server and one stand-in are shared: tests run one at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  reporter: [["list"]],
  globalSetup: "./tests/e2e/support/global-setup.ts",
  use: {
    baseURL: APP_ORIGIN,
    browserName: "chromium",
    launchOptions: { executablePath: chromiumPath, args: chromiumFlags },
    locale: "pt-BR",
    trace: "retain-on-failure",
  },
  webServer: {
    command: SERVE_COMMAND.map((part) => JSON.stringify(part)).join(" "),
    url: `${APP_ORIGIN}/healthz`,
    reuseExistingServer: false,
    timeout: 30_000,
    env: {
      ...serveEnv(APP_PORT),
      WEBHOOK_URL: STAND_IN_ORIGIN + WEBHOOK_PATH,
      HCAPTCHA_SECRET: "0x0000000000000000000000000000000000000000",
      HCAPTCHA_VERIFY_URL: STAND_IN_ORIGIN + SITEVERIFY_PATH,
      SIGNUP_SECRET: E2E_SIGNUP_SECRET,
      METRICS_TOKEN: E2E_METRICS_TOKEN,
      // Each test is a visitor of its own address (fixtures.ts), as if behind a proxy.
      TRUST_PROXY: "1",
    },
  },
});
