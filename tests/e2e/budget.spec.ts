import { gzipSync } from "node:zlib";
import { afterIdle, APP_SCRIPT, expect, signupForm, test, waitForHydration } from "./fixtures";

/** React 18 + the Remix runtime on a bare page (≈86 KB gzip) plus at most 10 KB of ours. */
const JS_BUDGET_BYTES = 96 * 1024;
const CSS_BUDGET_BYTES = 15 * 1024;

test.use({ viewport: { width: 390, height: 844 } });

test("before the visitor nears the form: no script, no font, one inline stylesheet of at most 15 KB gzip; once there, at most the framework floor + 10 KB of JavaScript (gzip), and still no font", async ({
  page,
}) => {
  const fetched: string[] = [];
  page.on("request", (request) => {
    const type = request.resourceType();
    if (["script", "stylesheet", "font"].includes(type)) fetched.push(`${type} ${request.url()}`);
  });
  const sizes: Array<Promise<[path: string, gzipBytes: number]>> = [];
  page.on("response", (response) => {
    const { pathname } = new URL(response.url());
    if (APP_SCRIPT.test(pathname))
      sizes.push(response.body().then((body) => [pathname, gzipSync(body, { level: 9 }).byteLength]));
  });
  await page.goto("/");
  await afterIdle(page);
  expect(fetched).toEqual([]);
  const css = await page.locator("head style").allTextContents();
  expect(css).toHaveLength(1);
  expect(gzipSync(css[0]!, { level: 9 }).byteLength).toBeLessThanOrEqual(CSS_BUDGET_BYTES);
  expect(css[0]).toContain(".bg-brand-900");

  // hCaptcha's component and the toasts come last, once the page has hydrated; then hCaptcha's script, which does not
  // report to hCaptcha's Sentry.
  const enhancements = page.waitForResponse(/signup-enhancements/);
  const hcaptcha = page.waitForRequest(/hcaptcha\.com/);
  await signupForm(page).email.scrollIntoViewIfNeeded();
  await waitForHydration(page);
  await enhancements;
  expect((await hcaptcha).url()).toContain("sentry=false");
  expect(fetched.filter((line) => !line.startsWith("script "))).toEqual([]);
  const scripts = await Promise.all(sizes);
  const listing = scripts.map(([path, size]) => `${(size / 1024).toFixed(1)} KB ${path}`).join("\n");
  // The budget is the boot's, as before: hCaptcha's component and the toasts (their own chunk) were never in it.
  const boot = scripts.filter(([path]) => !path.includes("signup-enhancements"));
  expect(boot.length, listing).toBeLessThan(scripts.length);
  expect(
    boot.reduce((sum, [, size]) => sum + size, 0),
    listing,
  ).toBeLessThanOrEqual(JS_BUDGET_BYTES);
});

/** Each size and weight of text is one more font the browser sets up in the first layout (docs/performance.md, "The page on a phone"). */
const TYPE_BUDGET = 10;

test("on a phone the page's text uses two weights and at most 10 size-weight pairs, the drawing's text on the page's sizes and inside the phone's screen", async ({
  page,
}) => {
  await page.goto("/");
  const texts = await page.evaluate(() => {
    const found: Array<{ inDrawing: boolean; size: number; weight: string; left: number; right: number }> = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const element = walker.currentNode.parentElement!;
      if (!walker.currentNode.textContent!.trim() || element.closest("script, template")) continue;
      if (!element.getClientRects().length) continue;
      const style = getComputedStyle(element);
      const inDrawing = element instanceof SVGTextElement && element.closest("#product-preview") !== null;
      // Drawn text is laid out at its font size times the drawing's scale.
      const scale = inDrawing ? (element as SVGTextElement).getScreenCTM()!.a : 1;
      const box = inDrawing ? (element as SVGTextElement).getBBox() : null;
      found.push({
        inDrawing,
        size: Math.round(parseFloat(style.fontSize) * scale * 100) / 100,
        weight: style.fontWeight,
        // In the drawing's units; its screen is 24…296 wide.
        left: box?.x ?? 0,
        right: box ? box.x + box.width : 0,
      });
    }
    return found;
  });
  const pairs = new Set(texts.map(({ size, weight }) => `${size}px ${weight}`));
  expect(new Set(texts.map(({ weight }) => weight))).toEqual(new Set(["400", "700"]));
  expect(pairs.size, [...pairs].join(", ")).toBeLessThanOrEqual(TYPE_BUDGET);
  const pageSizes = new Set(texts.filter(({ inDrawing }) => !inDrawing).map(({ size }) => size));
  const drawing = texts.filter(({ inDrawing }) => inDrawing);
  expect(drawing.length).toBeGreaterThan(10);
  expect(drawing.filter(({ size }) => !pageSizes.has(size))).toEqual([]);
  expect(drawing.filter(({ left, right }) => left < 24 || right > 296)).toEqual([]);
});
