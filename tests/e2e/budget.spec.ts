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

/** Each size and weight of text is one more font the browser sets up in the first layout (docs/performance.md, "Type"). */
const TYPE_BUDGET = 13;

test("on a phone the page's text uses two weights and at most 13 size-weight pairs, the drawing's on the page's own sizes", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  const texts = await page.evaluate(() => {
    const found: Array<{ inDrawing: boolean; size: number; weight: string }> = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const element = walker.currentNode.parentElement!;
      if (!walker.currentNode.textContent!.trim() || element.closest("script, template")) continue;
      if (!element.getClientRects().length) continue;
      const style = getComputedStyle(element);
      // Drawn text is laid out at its font size times the drawing's scale.
      const scale = element instanceof SVGGraphicsElement ? element.getScreenCTM()!.a : 1;
      found.push({
        inDrawing: scale !== 1,
        size: Math.round(parseFloat(style.fontSize) * scale * 100) / 100,
        weight: style.fontWeight,
      });
    }
    return found;
  });
  const pairs = new Set(texts.map(({ size, weight }) => `${size}px ${weight}`));
  expect(new Set(texts.map(({ weight }) => weight))).toEqual(new Set(["400", "700"]));
  expect(pairs.size, [...pairs].join(", ")).toBeLessThanOrEqual(TYPE_BUDGET);
  const pageSizes = new Set(texts.filter(({ inDrawing }) => !inDrawing).map(({ size }) => size));
  const drawingSizes = texts.filter(({ inDrawing }) => inDrawing).map(({ size }) => size);
  expect(drawingSizes.length).toBeGreaterThan(10);
  expect(drawingSizes.filter((size) => !pageSizes.has(size))).toEqual([]);
});
