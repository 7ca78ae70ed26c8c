import { gzipSync } from "node:zlib";
import { blockHcaptcha } from "./support/fake-hcaptcha";
import { afterIdle, expect, signupForm, test, waitForHydration } from "./fixtures";

/** React 18 + the Remix runtime on a bare page (≈86 KB gzip) plus at most 10 KB of ours. */
const JS_BUDGET_BYTES = 96 * 1024;
const CSS_BUDGET_BYTES = 15 * 1024;

test("no script byte before the visitor nears the form; once there, at most the framework floor + 10 KB of JavaScript (gzip)", async ({
  page,
}) => {
  await blockHcaptcha(page);
  const scripts = new Map<string, number>();
  const bodies: Promise<void>[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() !== "script") return;
    bodies.push(
      response.body().then((body) => {
        scripts.set(response.url(), gzipSync(body, { level: 9 }).byteLength);
      }),
    );
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await afterIdle(page);
  expect([...scripts.keys()]).toEqual([]);

  // hCaptcha's component and the toasts come last, once the page has hydrated.
  const enhancements = page.waitForResponse(/signup-enhancements/);
  await signupForm(page).email.scrollIntoViewIfNeeded();
  await waitForHydration(page);
  await enhancements;
  await Promise.all(bodies);
  const listing = [...scripts]
    .map(([url, size]) => `${(size / 1024).toFixed(1)} KB ${new URL(url).pathname}`)
    .join("\n");
  // The budget is the boot's, as before: hCaptcha's component and the toasts (their own chunk) were never in it.
  const boot = [...scripts].filter(([url]) => !url.includes("signup-enhancements"));
  expect(boot.length, listing).toBeLessThan(scripts.size);
  expect(
    boot.reduce((sum, [, size]) => sum + size, 0),
    listing,
  ).toBeLessThanOrEqual(JS_BUDGET_BYTES);
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
