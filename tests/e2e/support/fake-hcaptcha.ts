import type { Page } from "@playwright/test";
import { FAKE_HCAPTCHA_API } from "../../harness/fake-hcaptcha-api";

export const HCAPTCHA_SCRIPT = /^https:\/\/js\.hcaptcha\.com\//;

/** Serves the fake instead of hCaptcha's script for this page. */
export async function fakeHcaptcha(page: Page): Promise<void> {
  await page.route(HCAPTCHA_SCRIPT, (route) =>
    route.fulfill({
      status: 200,
      contentType: "application/javascript",
      headers: { "access-control-allow-origin": "*" },
      body: FAKE_HCAPTCHA_API,
    }),
  );
}

/** hCaptcha's host unreachable (blocked by an extension, provider down). */
export async function blockHcaptcha(page: Page): Promise<void> {
  await page.route(/hcaptcha\.com/, (route) => route.abort("connectionrefused"));
}
