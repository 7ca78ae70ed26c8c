/**
 * `npm run lighthouse`: Lighthouse (mobile preset) against the built site; writes the
 * HTML and JSON reports under reports/lighthouse/ (the last run of each kind) and prints
 * the four scores and the timings of each run, then the spread of each kind.
 *
 *   npm run lighthouse                          simulated throttling (Lighthouse's default)
 *   npm run lighthouse -- --devtools            devtools throttling: a really slowed network and CPU
 *   npm run lighthouse -- --runs=5 --devtools   five runs in a row, one line each
 *   npm run lighthouse -- --runs=10 --both      ten simulated runs, then ten with devtools throttling
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ROOT, startApp } from "../tests/harness/app-server";
import { runLighthouse, scores, type Throttling } from "./lib/lighthouse";

const { values: options } = parseArgs({
  options: {
    devtools: { type: "boolean", default: false },
    both: { type: "boolean", default: false },
    runs: { type: "string", default: "1" },
  },
});
const kinds: Throttling[] = options.both ? ["simulate", "devtools"] : [options.devtools ? "devtools" : "simulate"];
const runs = Math.max(1, Number(options.runs) || 1);

type RunFigures = { performance: number; lcp: number; fcp: number; tbt: number };

const app = await startApp({});
try {
  const folder = `${ROOT}reports/lighthouse`;
  mkdirSync(folder, { recursive: true });
  const summaries: string[] = [];
  for (const throttling of kinds) {
    console.log(`Lighthouse, mobile preset, ${throttling} throttling, ${runs} run(s)`);
    const figures: RunFigures[] = [];
    for (let run = 1; run <= runs; run++) {
      const result = await runLighthouse(`${app.origin}/`, { throttling });
      const [html, json] = result.report as string[];
      writeFileSync(`${folder}/report-${throttling}.html`, html!);
      writeFileSync(`${folder}/report-${throttling}.json`, json!);
      const audits = result.lhr.audits;
      const lcpElement = (audits["largest-contentful-paint-element"]?.details as LcpElementDetails | undefined)
        ?.items?.[0]?.items?.[0]?.node?.selector;
      console.log(
        `${JSON.stringify(scores(result))} LCP ${audits["largest-contentful-paint"]?.displayValue} (${lcpElement ?? "?"}), ` +
          `FCP ${audits["first-contentful-paint"]?.displayValue}, TBT ${audits["total-blocking-time"]?.displayValue}, ` +
          `CLS ${audits["cumulative-layout-shift"]?.displayValue}, Speed Index ${audits["speed-index"]?.displayValue}`,
      );
      figures.push({
        performance: scores(result).performance,
        lcp: audits["largest-contentful-paint"]?.numericValue ?? NaN,
        fcp: audits["first-contentful-paint"]?.numericValue ?? NaN,
        tbt: audits["total-blocking-time"]?.numericValue ?? NaN,
      });
    }
    summaries.push(summary(throttling, figures));
  }
  console.log(`\nSpread: min / median / max\n${summaries.join("\n")}`);
  console.log("reports/lighthouse/report-<throttling>.html written (the last run of each kind)");
} finally {
  await app.stop();
}

function summary(throttling: Throttling, figures: RunFigures[]): string {
  const spread = (key: keyof RunFigures, scale: number, unit: string) => {
    const sorted = figures.map((figure) => figure[key] / scale).sort((a, b) => a - b);
    const digits = unit === "s" ? 2 : 0;
    const [min, median, max] = [sorted[0]!, sorted[Math.floor((sorted.length - 1) / 2)]!, sorted.at(-1)!];
    return `${min.toFixed(digits)} / ${median.toFixed(digits)} / ${max.toFixed(digits)}${unit}`;
  };
  const hundreds = figures.filter((figure) => figure.performance === 100).length;
  return (
    `${throttling}, ${figures.length} run(s): Performance ${spread("performance", 1, "")} (100 in ${hundreds}), ` +
    `LCP ${spread("lcp", 1000, "s")}, FCP ${spread("fcp", 1000, "s")}, TBT ${spread("tbt", 1, " ms")}`
  );
}

/** The part of the LCP element audit's details that names the element. */
type LcpElementDetails = { items?: Array<{ items?: Array<{ node?: { selector?: string } }> }> };
