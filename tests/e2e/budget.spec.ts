import { gzipSync } from "node:zlib";
import { expect, test } from "./fixtures";

/** React 18 + the Remix runtime on a bare page (≈86 KB gzip) plus at most 10 KB of ours. */
const JS_BUDGET_BYTES = 96 * 1024;
const CSS_BUDGET_BYTES = 15 * 1024;
/**
 * React and the Remix runtime (three chunks), the client entry, the root, the page, and the
 * app code they share. Each more is one more request the page preloads before its first paint.
 */
const SCRIPTS_BEFORE_INTERACTION = 7;

test("before any interaction the page loads seven scripts, at most the framework floor + 10 KB of JavaScript (gzip)", async ({
  page,
}) => {
  const scripts = new Map<string, number>();
  page.on("response", async (response) => {
    if (response.request().resourceType() !== "script") return;
    scripts.set(response.url(), gzipSync(await response.body(), { level: 9 }).byteLength);
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await page.waitForLoadState("networkidle");

  const total = [...scripts.values()].reduce((sum, size) => sum + size, 0);
  const listing = [...scripts]
    .map(([url, size]) => `${(size / 1024).toFixed(1)} KB ${new URL(url).pathname}`)
    .join("\n");
  expect(scripts.size, listing).toBe(SCRIPTS_BEFORE_INTERACTION);
  expect(total, listing).toBeLessThanOrEqual(JS_BUDGET_BYTES);
  // hCaptcha's component and the toasts wait for the visitor to come near the form.
  expect(
    [...scripts.keys()].some((url) => url.includes("signup-enhancements")),
    listing,
  ).toBe(false);
});

test("the styles are one inline stylesheet of at most 15 KB gzip, and no web font is fetched", async ({ page }) => {
  const fetched: string[] = [];
  page.on("request", (request) => {
    if (["stylesheet", "font"].includes(request.resourceType())) fetched.push(request.url());
  });
  await page.goto("/");
  await page.waitForLoadState("networkidle");
  expect(fetched).toEqual([]);
  const css = await page.locator("head style").allTextContents();
  expect(css).toHaveLength(1);
  expect(gzipSync(css[0]!, { level: 9 }).byteLength).toBeLessThanOrEqual(CSS_BUDGET_BYTES);
  expect(css[0]).toContain(".bg-brand-900");
});
