/**
 * `npm run lighthouse`: Lighthouse (mobile preset) against the built site; writes the
 * HTML and JSON reports under reports/lighthouse/ and prints the four scores.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { startApp } from "../tests/harness/app-server";
import { ROOT } from "./lib/processes";
import { runLighthouse, scores } from "../tests/harness/lighthouse";

const app = await startApp({});
try {
  const result = await runLighthouse(`${app.origin}/`);
  const folder = `${ROOT}reports/lighthouse`;
  mkdirSync(folder, { recursive: true });
  const [html, json] = result.report as string[];
  writeFileSync(`${folder}/report.html`, html!);
  writeFileSync(`${folder}/report.json`, json!);
  const audits = result.lhr.audits;
  console.log(JSON.stringify(scores(result)));
  console.log(
    `LCP ${audits["largest-contentful-paint"]?.displayValue}, FCP ${audits["first-contentful-paint"]?.displayValue}, ` +
      `TBT ${audits["total-blocking-time"]?.displayValue}, CLS ${audits["cumulative-layout-shift"]?.displayValue}, ` +
      `Speed Index ${audits["speed-index"]?.displayValue}`,
  );
  console.log("reports/lighthouse/report.html written");
} finally {
  await app.stop();
}
