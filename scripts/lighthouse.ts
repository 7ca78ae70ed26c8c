/**
 * `npm run lighthouse`: Lighthouse (mobile preset) against the built site; writes the
 * HTML and JSON reports under reports/lighthouse/ and prints the four scores and the timings.
 *
 *   npm run lighthouse                          simulated throttling (Lighthouse's default)
 *   npm run lighthouse -- --devtools            devtools throttling: a really slowed network and CPU
 *   npm run lighthouse -- --runs=5 --devtools   five runs in a row, one line each
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ROOT, startApp } from "../tests/harness/app-server";
import { runLighthouse, scores, type Throttling } from "../tests/harness/lighthouse";

const { values: options } = parseArgs({
  options: { devtools: { type: "boolean", default: false }, runs: { type: "string", default: "1" } },
});
const throttling: Throttling = options.devtools ? "devtools" : "simulate";
const runs = Math.max(1, Number(options.runs) || 1);

const app = await startApp({});
try {
  const folder = `${ROOT}reports/lighthouse`;
  mkdirSync(folder, { recursive: true });
  console.log(`Lighthouse, mobile preset, ${throttling} throttling, ${runs} run(s)`);
  for (let run = 1; run <= runs; run++) {
    const result = await runLighthouse(`${app.origin}/`, { throttling });
    const [html, json] = result.report as string[];
    writeFileSync(`${folder}/report.html`, html!);
    writeFileSync(`${folder}/report.json`, json!);
    const audits = result.lhr.audits;
    const lcpElement = (audits["largest-contentful-paint-element"]?.details as LcpElementDetails | undefined)
      ?.items?.[0]?.items?.[0]?.node?.selector;
    console.log(
      `${JSON.stringify(scores(result))} LCP ${audits["largest-contentful-paint"]?.displayValue} (${lcpElement ?? "?"}), ` +
        `FCP ${audits["first-contentful-paint"]?.displayValue}, TBT ${audits["total-blocking-time"]?.displayValue}, ` +
        `CLS ${audits["cumulative-layout-shift"]?.displayValue}, Speed Index ${audits["speed-index"]?.displayValue}`,
    );
  }
  console.log("reports/lighthouse/report.html written (the last run)");
} finally {
  await app.stop();
}

/** The part of the LCP element audit's details that names the element. */
type LcpElementDetails = { items?: Array<{ items?: Array<{ node?: { selector?: string } }> }> };
