import * as chromeLauncher from "chrome-launcher";
import lighthouse, { type RunnerResult } from "lighthouse";
import { chromiumFlags, chromiumPath } from "./chromium";

export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;

/**
 * Lighthouse's default run (mobile, simulated throttling) against `url` in
 * headless Chromium. hCaptcha's host is not blocked: the page must not touch
 * it before the visitor reaches the form. The full-page screenshot is off
 * because it stretches the viewport over the whole page, which no visitor does.
 */
export async function runLighthouse(url: string): Promise<RunnerResult> {
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath,
    chromeFlags: ["--headless=new", ...chromiumFlags],
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: ["html", "json"],
      logLevel: "error",
      onlyCategories: [...CATEGORIES],
      disableFullPageScreenshot: true,
    });
    if (!result) throw new Error("Lighthouse returned no result");
    return result;
  } finally {
    await chrome.kill();
  }
}

/** Scores as whole numbers out of 100. */
export function scores(result: RunnerResult): Record<(typeof CATEGORIES)[number], number> {
  const { categories } = result.lhr;
  return Object.fromEntries(CATEGORIES.map((id) => [id, Math.round((categories[id]?.score ?? 0) * 100)])) as Record<
    (typeof CATEGORIES)[number],
    number
  >;
}
