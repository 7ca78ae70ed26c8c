import * as chromeLauncher from "chrome-launcher";
import lighthouse, { type RunnerResult } from "lighthouse";
import { chromiumFlags, chromiumPath } from "./chromium";

export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;

/**
 * Lighthouse's default run (mobile, simulated throttling) against `url` in
 * headless Chromium. hCaptcha's host is not blocked: the page must not touch
 * it before the visitor reaches the form. The full-page screenshot is off
 * because it stretches the viewport over the whole page, which no visitor does.
 *
 * One renderer process: otherwise the page loads in a fresh process after
 * Lighthouse's about:blank, and in 3 of 71 runs here that process's
 * navigationStart is missing from the trace (NO_NAVSTART, every timing audit
 * errored and Best Practices scored 0). 60 runs with it: no failure.
 */
export async function runLighthouse(url: string): Promise<RunnerResult> {
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath,
    chromeFlags: ["--headless=new", "--renderer-process-limit=1", ...chromiumFlags],
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
