/**
 * Launch-day load on loopback: 2,000 valid sign-ups, 50 at a time, through the
 * built server to a local webhook. Passes when the webhook received exactly
 * 2,000 distinct bodies and every sign-up was answered 200.
 */
import { StandInClient } from "../tests/support/stand-in";
import { startSignupRig } from "./lib/processes";
import { postSignups } from "./lib/signups";

const TOTAL = 2_000;
const CONCURRENCY = 50;

const rig = await startSignupRig();

let failures: string[] = [];
try {
  const run = await postSignups(rig.app.origin, TOTAL, CONCURRENCY, Date.now().toString(36));
  const { webhook } = await new StandInClient(rig.standInOrigin).received();
  const distinct = new Set(webhook.map((request) => request.raw));
  console.log(`sign-ups sent        ${run.total} at ${run.concurrency} concurrent`);
  console.log(`answers              ${JSON.stringify(run.statuses)}`);
  console.log(`webhook received     ${webhook.length} requests, ${distinct.size} distinct bodies`);
  console.log(`throughput           ${run.perSecond.toFixed(0)} sign-ups/s (${run.seconds.toFixed(2)} s)`);
  console.log(`latency              p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms`);
  if (run.statuses[200] !== TOTAL) failures.push(`expected ${TOTAL} answers 200, got ${JSON.stringify(run.statuses)}`);
  if (webhook.length !== TOTAL || distinct.size !== TOTAL) {
    failures.push(`expected ${TOTAL} distinct bodies at the webhook, got ${webhook.length} (${distinct.size} distinct)`);
  }
} catch (error) {
  failures = [String(error)];
} finally {
  await rig.stop();
}

for (const failure of failures) console.error(`load test: ${failure}`);
console.log(failures.length ? "0 passed, 1 failed" : "1 passed, 0 failed");
process.exit(failures.length ? 1 : 0);
