import type { Page } from "@playwright/test";
import { expect, test, waitForHydration } from "./fixtures";

/** Small and common phones, a tablet, a laptop. */
const SCREENS = [
  { width: 320, height: 640 },
  { width: 360, height: 640 },
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1280, height: 800 },
] as const;

const picture = (page: Page) => page.locator("#product-preview svg");
const callToAction = (page: Page) => page.getByRole("link", { name: "Seja o primeiro a saber!" });

/** Every layout shift since the navigation started, as the browser recorded them (CLS's inputs). */
function layoutShiftTotal(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        type LayoutShift = PerformanceEntry & { value: number; hadRecentInput: boolean };
        let total = 0;
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as LayoutShift[]) if (!entry.hadRecentInput) total += entry.value;
        });
        observer.observe({ type: "layout-shift", buffered: true });
        // Buffered entries are delivered in the observer's first task; this one runs after it.
        setTimeout(() => {
          observer.disconnect();
          resolve(total);
        });
      }),
  );
}

test("on every screen the hero fits the width and nothing shifts (screenshots kept); on a phone 640 px tall the whole call to action is on the first screen, above the picture", async ({
  page,
}, testInfo) => {
  for (const screen of SCREENS) {
    await test.step(`${screen.width}×${screen.height}`, async () => {
      await page.setViewportSize(screen);
      await page.goto("/");
      // The first screen is the first response alone: its scripts wait for the visitor to near the form.
      await page.waitForLoadState("networkidle");
      await page.screenshot({ path: testInfo.outputPath(`hero-${screen.width}x${screen.height}.png`) });

      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(screen.width);
      const box = (await picture(page).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(screen.width);
      expect(await layoutShiftTotal(page)).toBe(0);
      if (screen.height !== 640) return;
      const cta = (await callToAction(page).boundingBox())!;
      expect(cta.y).toBeGreaterThanOrEqual(0);
      expect(cta.y + cta.height).toBeLessThanOrEqual(640);
      // The picture starts below the first screen: it can neither push the button down nor be its largest paint.
      expect(box.y).toBeGreaterThanOrEqual(640);
    });
  }
});

test("at 1280 px the app's picture stands beside the text, whole and on the first screen; it is decoration: a screen reader meets the hero's text, not the drawing's figures", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/");
  const hero = await page.locator("main > section").first().ariaSnapshot();
  expect(hero).toContain("Toda a sua previdência privada em um só app");
  expect(hero).not.toContain("248.930,52");
  expect(hero).not.toContain("Simular portabilidade");
  // The visitor puts the cursor in the e-mail field without scrolling: the page boots, the view stays.
  await page.getByLabel("Seu e-mail").evaluate((input: HTMLInputElement) => input.focus({ preventScroll: true }));
  await waitForHydration(page);
  // Still there once React has taken the page over (the browser reuses the drawing the HTML brought).
  await expect(picture(page)).toBeInViewport({ ratio: 1 });
  await expect(picture(page).getByText("R$ 248.930,52")).toBeVisible();
  await expect(picture(page).getByText("Conectado ao Open Insurance")).toBeVisible();
  const drawing = (await picture(page).boundingBox())!;
  const title = (await page.getByRole("heading", { level: 1 }).boundingBox())!;
  const cta = (await callToAction(page).boundingBox())!;
  expect(drawing.width).toBeGreaterThanOrEqual(280);
  expect(drawing.x).toBeGreaterThanOrEqual(title.x + title.width);
  expect(drawing.y).toBeLessThan(cta.y);
  expect(drawing.y + drawing.height).toBeGreaterThan(cta.y + cta.height);
});
