/**
 * Launch-day load on loopback.
 *
 * `npm run test:load`: 2,000 valid sign-ups (`--signups=N`: N), 50 at a time,
 * through the built server to a local webhook. Passes when the webhook received
 * exactly that many distinct bodies and every sign-up was answered 200.
 *
 * `npm run test:load -- --cluster`: the same 2,000 through nginx to three
 * instances sharing a redis-server; every tenth is also posted at the same
 * moment straight to another instance, and one instance is killed (SIGKILL)
 * halfway. Passes when every visitor answered 200 has exactly one webhook
 * record, none has two, no body arrived twice, and only sign-ups in flight on
 * the killed instance went unanswered.
 *
 * `npm run test:load -- --queued`: the cluster run in queued delivery
 * (RELAY_MODE=queued) while the webhook is down (503 to every attempt) for the
 * whole load, then back. Passes when, within two minutes after the load ends,
 * every visitor answered 200 has exactly one delivered record (one
 * Idempotency-Key answered 2xx; a job redelivered after the kill carries the
 * same key). Its instances run with attempts of a few seconds
 * (RELAY_ATTEMPT_SECONDS), so the killed instance's jobs are taken over within
 * seconds. With `--replicas`, Redis has a replica and the instances
 * REDIS_MIN_REPLICAS=1: each sign-up waits for WAIT, whose cost the latency
 * line shows against the run without it.
 *
 * `npm run test:load -- --failover`: three runs of 500 sign-ups, 10 at a time,
 * on a Sentinel group (a primary, two replicas, three Sentinels) with two
 * instances in queued mode, REDIS_MIN_REPLICAS=1 and the webhook down; halfway
 * through, the primary's machine is lost (SIGKILL, data folder deleted). A
 * visitor answered 'Cadastro indisponível' presses again every quarter of a
 * second. Passes when every visitor answered 200 reaches the webhook once it is
 * back, under one Idempotency-Key; prints the time from the loss to the first
 * sign-up accepted after it, per run.
 */
import pMap from "p-map";
import { startApp } from "../tests/harness/app-server";
import { startNginxBalancer, startRedis } from "../tests/harness/real-servers";
import { GROUP_NAME, startRedisGroup } from "../tests/harness/redis-group";
import { postSignup, visitorFields } from "../tests/harness/signup-client";
import { deliveredOf, StandInClient, WEBHOOK_PATH, type StandIn } from "../tests/harness/stand-in";
import { until } from "../tests/harness/wait";
import { percentile, RIG_SECRET, startSignupRig, startStandInProcess } from "./lib/processes";
import { postSignups } from "./lib/signups";

/** Sign-ups per run: 2,000, or `--signups=N` (CI runs fewer: it checks the records, not the speeds). */
const signupsOption = process.argv.find((arg) => arg.startsWith("--signups="));
const TOTAL = signupsOption ? Number(signupsOption.slice("--signups=".length)) : 2_000;
if (!Number.isInteger(TOTAL) || TOTAL < 20) throw new Error(`--signups takes a whole number from 20: ${signupsOption}`);
const CONCURRENCY = 50;

async function singleInstance(): Promise<string[]> {
  const rig = await startSignupRig();
  const failures: string[] = [];
  try {
    const run = await postSignups(rig.app.origin, TOTAL, CONCURRENCY, Date.now().toString(36));
    const { webhook } = await new StandInClient(rig.standInOrigin).received();
    const distinct = new Set(webhook.map((request) => request.raw));
    console.log(`sign-ups sent        ${run.total} at ${run.concurrency} concurrent`);
    console.log(`answers              ${JSON.stringify(run.statuses)}`);
    console.log(`webhook received     ${webhook.length} requests, ${distinct.size} distinct bodies`);
    console.log(`throughput           ${run.perSecond.toFixed(0)} sign-ups/s (${run.seconds.toFixed(2)} s)`);
    console.log(`latency              p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms`);
    if (run.statuses[200] !== TOTAL)
      failures.push(`expected ${TOTAL} answers 200, got ${JSON.stringify(run.statuses)}`);
    if (webhook.length !== TOTAL || distinct.size !== TOTAL) {
      failures.push(
        `expected ${TOTAL} distinct bodies at the webhook, got ${webhook.length} (${distinct.size} distinct)`,
      );
    }
  } finally {
    await rig.stop();
  }
  return failures;
}

/** RELAY_ATTEMPT_SECONDS of the queued run: the killed instance's locks lapse within 1.5–2 times it. */
const QUEUED_ATTEMPT_SECONDS = 3;
/** How long queued sign-ups may take to reach the webhook once the load has ended. */
const QUEUED_DELIVERY_WINDOW_MS = 120_000;

async function cluster({ queued, replicated }: { queued: boolean; replicated: boolean }): Promise<string[]> {
  const redis = await startRedis();
  // Loaded from the primary's stream, not a dump.rdb left in the working folder.
  const replicaOptions = ["--replicaof", "127.0.0.1", String(redis.port), "--repl-diskless-load", "on-empty-db"];
  const replica = replicated ? await startRedis({ options: replicaOptions }) : null;
  const standIn = await startStandInProcess();
  const webhook = new StandInClient(standIn.origin);
  // Queued: the webhook is down (503) for the whole load, then back; every sign-up waits in Redis meanwhile.
  if (queued) await webhook.setWebhook({ status: 503, text: "Service Unavailable" });
  const instances = await Promise.all(
    [0, 1, 2].map(() =>
      startApp({
        WEBHOOK_URL: standIn.origin + WEBHOOK_PATH,
        REDIS_URL: redis.url,
        TRUST_PROXY: "1",
        SIGNUP_SECRET: RIG_SECRET,
        RELAY_LIMIT_PER_SECOND: "1000000",
        ...(queued ? { RELAY_MODE: "queued", RELAY_ATTEMPT_SECONDS: String(QUEUED_ATTEMPT_SECONDS) } : {}),
        ...(replica ? { REDIS_MIN_REPLICAS: "1" } : {}),
      }),
    ),
  );
  const balancer = await startNginxBalancer(instances.map((app) => app.origin));
  const [first, second, doomed] = instances as [(typeof instances)[0], (typeof instances)[0], (typeof instances)[0]];
  const failures: string[] = [];
  try {
    const botTrap = visitorFields(RIG_SECRET);
    const tag = Date.now().toString(36);
    /** Every answer each visitor got: HTTP statuses, or "no answer" when the connection failed. */
    const answers = new Map<string, Array<number | "no answer">>();
    const latencies: number[] = [];
    const answer = (email: string, status: number | "no answer") =>
      answers.set(email, [...(answers.get(email) ?? []), status]);
    const send = async (origin: string, email: string, fields: Record<string, string>, from?: string) => {
      const started = performance.now();
      try {
        const response = await postSignup(origin, fields, { userAgent: "load-test", data: true, from });
        await response.arrayBuffer();
        answer(email, response.status);
      } catch {
        answer(email, "no answer");
      }
      latencies.push(performance.now() - started);
    };

    let killedAt = -1;
    const started = performance.now();
    await pMap(
      Array.from({ length: TOTAL }),
      async (_, index) => {
        if (index === Math.floor(TOTAL / 2)) {
          killedAt = index;
          doomed.process.kill("SIGKILL");
        }
        const email = `cluster-${tag}-${index}@exemplo.com.br`;
        const fields = { ...botTrap, email, hcaptchaToken: `P1_cluster-${tag}-${index}` };
        // Visitors come from 250 addresses, as nginx's per-address limits expect of real ones.
        const posts = [send(balancer.origin, email, fields, `127.1.0.${1 + (index % 250)}`)];
        // A visitor's retry reaching another instance directly, at the same moment.
        if (index % 10 === 0) posts.push(send((index % 20 === 0 ? first : second).origin, email, fields));
        await Promise.all(posts);
      },
      { concurrency: CONCURRENCY },
    );
    const seconds = (performance.now() - started) / 1000;
    if (queued) await webhook.setWebhook({ status: 200, text: "ok" });
    const acknowledged = [...answers].filter(([, list]) => list.includes(200)).map(([email]) => email);

    // Direct: what the webhook received before each answer. Queued: what it accepted (2xx), once per
    // Idempotency-Key, once the workers have caught up (retries and the killed instance's jobs).
    let all: StandIn["received"] = { webhook: [], siteverify: [] };
    let received = all.webhook;
    let records = new Map<string, number>();
    const count = async () => {
      all = await webhook.received();
      received = all.webhook;
      const emails = queued ? deliveredOf(all) : received.map((hit) => (hit.body as { email: string }).email);
      records = new Map<string, number>();
      for (const email of emails) records.set(email, (records.get(email) ?? 0) + 1);
      return acknowledged.every((email) => records.has(email));
    };
    const drainStarted = performance.now();
    // Past the window the checks below name what is missing.
    const what = "every acknowledged sign-up delivered";
    if (queued) await until(count, { what, timeoutMs: QUEUED_DELIVERY_WINDOW_MS, intervalMs: 500 }).catch(() => {});
    else await count();
    const drainSeconds = (performance.now() - drainStarted) / 1000;

    const statuses: Record<string, number> = {};
    for (const list of answers.values()) for (const status of list) statuses[status] = (statuses[status] ?? 0) + 1;
    const accepted = received.filter((hit) => hit.status >= 200 && hit.status < 300);
    const distinctBodies = new Set((queued ? accepted : received).map((hit) => hit.raw)).size;
    latencies.sort((a, b) => a - b);

    console.log(
      `cluster              3 instances behind nginx, one Redis, ${queued ? "queued" : "direct"} delivery; instance 3 killed at sign-up ${killedAt}`,
    );
    if (queued) console.log("webhook              down (503 to every attempt) for the whole load, then back");
    if (replica) console.log("replicas             one, REDIS_MIN_REPLICAS=1: each sign-up waits for WAIT");
    console.log(
      `sign-ups sent        ${TOTAL} at ${CONCURRENCY} concurrent, ${Math.ceil(TOTAL / 10)} posted twice at once`,
    );
    console.log(`answers              ${JSON.stringify(statuses)}`);
    console.log(`visitors answered 200 ${acknowledged.length}`);
    console.log(
      `webhook received     ${received.length} requests (${accepted.length} answered 2xx), ${distinctBodies} distinct bodies, ${records.size} addresses`,
    );
    if (queued) console.log(`delivered after      ${drainSeconds.toFixed(1)} s past the load's end`);
    console.log(`throughput           ${(TOTAL / seconds).toFixed(0)} sign-ups/s (${seconds.toFixed(2)} s)`);
    console.log(
      `latency              p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
    );

    // A process killed while writing an answer cuts it off (nginx has passed its headers on
    // already): only the sign-ups in flight on the killed instance may end that way.
    const cutOff = [...answers].filter(([, list]) => list.includes("no answer"));
    console.log(`cut off by the kill  ${cutOff.length} visitors`);
    if (cutOff.length > CONCURRENCY) failures.push(`${cutOff.length} visitors got no answer, more than were in flight`);
    const missing = acknowledged.filter((email) => records.get(email) !== 1);
    if (missing.length)
      failures.push(`${missing.length} visitors answered 200 without exactly one record, e.g. ${missing[0]}`);
    const twice = [...records].filter(([, count]) => count > 1);
    if (twice.length) failures.push(`${twice.length} addresses relayed more than once, e.g. ${twice[0]![0]}`);
    if (!queued && distinctBodies !== received.length)
      failures.push(`the webhook received ${received.length - distinctBodies} bodies twice`);
    // Queued: retried until accepted, and accepted once (no instance died holding an accepted attempt).
    if (queued && distinctBodies !== accepted.length)
      failures.push(`the webhook accepted ${accepted.length - distinctBodies} bodies twice`);
    // Only the sign-ups in flight on the killed instance may fail (at most CONCURRENCY); more means the cluster broke.
    if (acknowledged.length < TOTAL - CONCURRENCY)
      failures.push(`only ${acknowledged.length} of ${TOTAL} visitors answered 200`);
    if (killedAt < 0) failures.push("no instance was killed");
    for (const app of [first, second]) if (app.process.exitCode !== null) failures.push(`${app.origin} exited`);
  } finally {
    await balancer.stop();
    await Promise.all(instances.map((app) => app.stop()));
    standIn.stop();
    await replica?.stop();
    await redis.stop();
  }
  return failures;
}

const FAILOVER_RUNS = 3;
const FAILOVER_SIGNUPS = 500;
const FAILOVER_CONCURRENCY = 10;
/** How long a visitor answered 'Cadastro indisponível' keeps pressing again, a quarter of a second apart. */
const PRESSING_FOR_MS = 60_000;

/** One --failover run: what was acknowledged, what of it reached the webhook, and when sign-ups resumed. */
async function failoverRun(run: number): Promise<{ failures: string[]; resumedAfterMs: number | null }> {
  const group = await startRedisGroup(2);
  const standIn = await startStandInProcess();
  const webhook = new StandInClient(standIn.origin);
  await webhook.setWebhook({ status: 503, text: "Service Unavailable" });
  const env = {
    WEBHOOK_URL: standIn.origin + WEBHOOK_PATH,
    REDIS_URL: group.nodes[0]!.url,
    REDIS_SENTINELS: group.sentinels,
    REDIS_SENTINEL_NAME: GROUP_NAME,
    REDIS_MIN_REPLICAS: "1",
    RELAY_MODE: "queued",
    RELAY_ATTEMPT_SECONDS: String(QUEUED_ATTEMPT_SECONDS),
    SIGNUP_SECRET: RIG_SECRET,
    RELAY_LIMIT_PER_SECOND: "1000000",
  };
  const instances = await Promise.all([0, 1].map(() => startApp(env)));
  const failures: string[] = [];
  try {
    const botTrap = visitorFields(RIG_SECRET);
    const tag = `${Date.now().toString(36)}-${run}`;
    const acknowledged: string[] = [];
    const statuses: Record<string, number> = {};
    let lostAt = Infinity;
    let resumedAfterMs: number | null = null;
    await pMap(
      Array.from({ length: FAILOVER_SIGNUPS }),
      async (_, index) => {
        if (index === FAILOVER_SIGNUPS / 2) {
          lostAt = performance.now();
          await group.nodes[0]!.stop();
        }
        const email = `failover-${tag}-${index}@exemplo.com.br`;
        for (let press = 0, giveUpAt = performance.now() + PRESSING_FOR_MS; performance.now() < giveUpAt; press++) {
          const sentAt = performance.now();
          const fields = { ...botTrap, email, hcaptchaToken: `P1_${tag}-${index}-${press}` };
          const response = await postSignup(instances[index % 2]!.origin, fields, { data: true });
          await response.arrayBuffer();
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          if (response.status === 200) {
            acknowledged.push(email);
            if (sentAt > lostAt) resumedAfterMs ??= performance.now() - lostAt;
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      },
      { concurrency: FAILOVER_CONCURRENCY },
    );
    await webhook.setWebhook({ status: 200, text: "ok" });
    let delivered = new Set<string>();
    const allDelivered = async () => {
      delivered = new Set(deliveredOf(await webhook.received()));
      return acknowledged.every((email) => delivered.has(email));
    };
    await until(allDelivered, { what: "delivered", timeoutMs: QUEUED_DELIVERY_WINDOW_MS, intervalMs: 500 }).catch(
      () => {},
    );
    const keys = new Map<string, Set<unknown>>();
    for (const hit of (await webhook.received()).webhook) {
      const email = (hit.body as { email: string }).email;
      keys.set(email, (keys.get(email) ?? new Set()).add(hit.headers["idempotency-key"]));
    }
    const lost = acknowledged.filter((email) => !delivered.has(email));
    const severalKeys = [...keys].filter(([, set]) => set.size > 1);
    console.log(
      `run ${run}                acknowledged ${acknowledged.length}, lost ${lost.length}, answers ${JSON.stringify(statuses)}, ` +
        `first accepted ${resumedAfterMs === null ? "never" : `${(resumedAfterMs / 1000).toFixed(1)} s`} after the loss`,
    );
    if (lost.length) failures.push(`run ${run}: ${lost.length} acknowledged sign-ups lost, e.g. ${lost[0]}`);
    if (severalKeys.length) failures.push(`run ${run}: ${severalKeys.length} addresses under several keys`);
    if (resumedAfterMs === null) failures.push(`run ${run}: no sign-up accepted after the loss`);
    return { failures, resumedAfterMs };
  } finally {
    await Promise.all(instances.map((app) => app.stop()));
    standIn.stop();
    await group.stop();
  }
}

async function failover(): Promise<string[]> {
  const failures: string[] = [];
  const resumedAfter: number[] = [];
  for (let run = 1; run <= FAILOVER_RUNS; run++) {
    const result = await failoverRun(run);
    failures.push(...result.failures);
    if (result.resumedAfterMs !== null) resumedAfter.push(result.resumedAfterMs);
  }
  resumedAfter.sort((a, b) => a - b);
  console.log(
    `first accepted after the loss: median ${(percentile(resumedAfter, 50) / 1000).toFixed(1)} s, ` +
      `worst ${((resumedAfter.at(-1) ?? NaN) / 1000).toFixed(1)} s`,
  );
  return failures;
}

let failures: string[];
try {
  const queued = process.argv.includes("--queued");
  const replicated = process.argv.includes("--replicas");
  if (process.argv.includes("--failover")) failures = await failover();
  else if (queued || process.argv.includes("--cluster")) failures = await cluster({ queued, replicated });
  else failures = await singleInstance();
} catch (error) {
  failures = [String(error)];
}
for (const failure of failures) console.error(`load test: ${failure}`);
console.log(failures.length ? "0 passed, 1 failed" : "1 passed, 0 failed");
process.exit(failures.length ? 1 : 0);
