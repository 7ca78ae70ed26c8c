import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pMap from "p-map";
import { describe, expect, it } from "vitest";
import { QUEUE_NAME } from "~/delivery/queue.server";
import { SITEVERIFY_TIMEOUT_MS } from "~/signup/captcha.server";
import { ROOT, type RunningApp } from "../harness/app-server";
import { scrapeMetrics, sumOf } from "../harness/metrics";
import { startRedis } from "../harness/real-servers";
import { signUp } from "../harness/signup-client";
import type { ReceivedWebhook } from "../harness/stand-in";
import { answers, until } from "../harness/wait";
import { builtServerSuite, filledForm, newClient, redisPerFile, SUITE_SECRET } from "./suite";

/**
 * RELAY_MODE=queued against the built server on a real redis-server: a verified sign-up is acknowledged once it is
 * in Redis, and the workers of every instance deliver it through faults, kills and restarts, exactly once per
 * Idempotency-Key, or dead-letter it for ops. What one POST carries, and which answers are retried: unit/delivery;
 * the Redis settings warned of: unit/durable-stores; an outage over two hundred sign-ups and a killed instance at scale: `npm run test:load -- --queued`.
 */

const redis = redisPerFile();

const METRICS_TOKEN = "metrics-token-0123456789";

/** The shortest attempts the settings allow: a dead worker's jobs are taken over, a stalled attempt retried, soonest. */
const ATTEMPT_SECONDS = 2;
/** Their lock, half as long again (the limits table, docs/signup.md). */
const LOCK_MS = 3_000;

const { standIn, start } = builtServerSuite((standIn) => ({
  WEBHOOK_URL: standIn.webhookUrl,
  REDIS_URL: redis().url,
  RELAY_MODE: "queued",
  RELAY_ATTEMPT_SECONDS: String(ATTEMPT_SECONDS),
  TRUST_PROXY: "1",
}));

/** A visitor of an address of its own signs up with `email` (and a captcha solved for it, unless told another). */
const send = (app: RunningApp, email: string, hcaptchaToken?: string) =>
  signUp(app.origin, filledForm(email, hcaptchaToken), { client: newClient() });

/** Every request the webhook got for `email`. */
const attemptsFor = (email: string): ReceivedWebhook[] =>
  standIn.received.webhook.filter((hit) => (hit.body as { email: string }).email === email);

/** Jobs waiting, delayed for a retry or being delivered, as BullMQ keeps them in Redis. */
async function undeliveredJobs(): Promise<number> {
  const key = (state: string) => `prevly-landing:${QUEUE_NAME}:${state}`;
  const sizes = await Promise.all([
    redis().cli("LLEN", key("wait")),
    redis().cli("ZCARD", key("delayed")),
    redis().cli("LLEN", key("active")),
  ]);
  return sizes.reduce((sum, size) => sum + Number(size), 0);
}

/** Resolves once BullMQ holds `count` jobs in its failed set: dead-lettered, listed by the command. */
const deadLettered = (count: number, timeoutMs = 10_000) =>
  until(async () => Number(await redis().cli("ZCARD", `prevly-landing:${QUEUE_NAME}:failed`)) === count, {
    what: `${count} dead letters`,
    timeoutMs,
  });

/** The day of every address's sign-up is over: the ledger no longer knows them. */
async function forgetTheDay(): Promise<void> {
  for (const key of (await redis().cli("--scan", "--pattern", "*:ledger:*")).split("\n").filter(Boolean)) {
    await redis().cli("DEL", key);
  }
}

/** The delivery log lines `app` printed, parsed. */
const deliveryLines = (app: RunningApp) =>
  app
    .output()
    .split("\n")
    .filter((line) => line.includes('"event":"delivery-'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Resolves once the webhook accepted `count` distinct submissions. */
const delivered = (count: number, timeoutMs = 30_000) =>
  until(() => standIn.deliveredEmails().length >= count, { what: `${count} deliveries`, timeoutMs });

/** The dead-letter command as ops run it in the image: `node build/dead-letters.js …`. */
async function deadLetters(...args: string[]): Promise<{ code: number; out: string }> {
  const env = {
    PATH: process.env.PATH ?? "",
    NODE_ENV: "production" as const,
    REDIS_URL: redis().url,
    SIGNUP_SECRET: SUITE_SECRET,
  };
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [`${ROOT}build/dead-letters.js`, ...args], { env });
    return { code: 0, out: stdout.trim() };
  } catch (failure) {
    const { code, stdout, stderr } = failure as { code: number; stdout: string; stderr: string };
    return { code, out: `${stdout}${stderr}`.trim() };
  }
}

describe("queued attempts get the time automations take", () => {
  it("each failed attempt is retried under one key and logs one line (attempt, status or error, next try, e-mail masked); an attempt past RELAY_ATTEMPT_SECONDS is a timeout, a late answer within it a delivery (when the next try comes: unit/delivery)", async () => {
    const app = await start();
    standIn.webhook = { status: 429, text: "slow down" };
    await send(app, "paciente@exemplo.com.br");
    await standIn.arrived("webhook");
    // Answered only when the attempt has given up on it.
    standIn.webhook = { status: 200, text: "ok", hold: true };
    await standIn.arrived("webhook", 2);
    standIn.webhook = { status: 200, text: "ok", delayMs: (ATTEMPT_SECONDS - 1) * 1000 };
    await app.printed(/"event":"delivery-delivered"/, 20_000);
    const failed = {
      event: "delivery-attempt-failed",
      email: "p***@exemplo.com.br",
      nextAttemptAt: expect.any(String),
    };
    expect(deliveryLines(app)).toEqual([
      expect.objectContaining({ ...failed, attempt: 1, status: 429 }),
      expect.objectContaining({ ...failed, attempt: 2, error: "timeout" }),
      expect.objectContaining({ event: "delivery-delivered", attempt: 3, email: "p***@exemplo.com.br" }),
    ]);
    const attempts = attemptsFor("paciente@exemplo.com.br");
    expect(attempts.map((hit) => hit.status)).toEqual([429, 0, 200]);
    expect(new Set(attempts.map((hit) => hit.headers["idempotency-key"])).size).toBe(1);
    expect(app.output()).not.toContain("paciente@");
  });
});

describe("queued mode runs only on a Redis that keeps its data", () => {
  it("a policy changed to evict keys while running: /readyz 503 and instance_ready 0, no sign-up acknowledged, until it is back; an instance started meanwhile stops with one line naming the setting and the fix", async () => {
    const app = await start({ METRICS_TOKEN });
    const ready = async () => sumOf(await scrapeMetrics(app.origin, METRICS_TOKEN), "instance_ready");
    expect(await ready()).toBe(1);
    await redis().cli("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
    try {
      await until(() => answers(`${app.origin}/readyz`, 503), { what: "/readyz 503" });
      expect(await (await fetch(`${app.origin}/readyz`)).text()).toContain("maxmemory-policy is allkeys-lru");
      expect(await ready()).toBe(0);
      const { status, result } = await send(app, "despejo@exemplo.com.br");
      expect(status).toBe(503);
      expect(result).toMatchObject({ ok: false, email: "despejo@exemplo.com.br" });
      expect(await undeliveredJobs()).toBe(0);
      expect(standIn.received.webhook).toHaveLength(0);
      const refused = await start().then(
        () => "started",
        (error: Error) => error.message,
      );
      expect(refused).toMatch(/^app exited with 1:/);
      expect(refused.split("\n").filter((line) => line.includes("maxmemory-policy"))).toEqual([
        "Invalid configuration: Redis's maxmemory-policy is allkeys-lru, so it may evict queued sign-ups; RELAY_MODE=queued needs noeviction (CONFIG SET maxmemory-policy noeviction, and the same in redis.conf)",
      ]);
    } finally {
      await redis().cli("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }
    await until(() => answers(`${app.origin}/readyz`), { what: "/readyz ready again" });
    expect(await ready()).toBe(1);
  });

  it("a job whose sign-up Redis lost is never POSTed: dead-lettered with the reason, and listed", async () => {
    const app = await start();
    // Its retry no sooner than Retry-After asks: the hash is gone by then.
    standIn.webhook = { status: 503, text: "", headers: { "retry-after": "2" } };
    await send(app, "perdida@exemplo.com.br");
    await standIn.arrived("webhook");
    const id = String(standIn.received.webhook[0]!.headers["idempotency-key"]);
    // What an evicting Redis does: the job's hash is gone, its id still in the delayed set.
    await redis().cli("DEL", `prevly-landing:${QUEUE_NAME}:${id}`);
    standIn.webhook = { status: 200, text: "ok" };
    await deadLettered(1);
    const listed = await deadLetters("list");
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(new RegExp(`^${id} {2}\\S+Z {2}\\d+ attempts {2}sign-up lost {2}\\(sign-up lost\\)$`));
    expect(standIn.received.webhook).toHaveLength(1);
    await app.printed(/"event":"delivery-dead-lettered".*"reason":"sign-up lost: Redis dropped the job's data/);
  });
});

describe("queued delivery", () => {
  it("an enqueue whose answer was lost (the ledger recorded a failure, the job is in Redis): the visitor's retry with a new captcha adds nothing", async () => {
    const app = await start();
    standIn.webhook = { status: 503, text: "" };
    const email = "resposta-perdida@exemplo.com.br";
    expect((await send(app, email)).status).toBe(200);
    await standIn.arrived("webhook");
    // What a Redis stall between the enqueue and its answer leaves: the job, and a ledger that knows nothing of it.
    await forgetTheDay();
    expect((await send(app, email, "P1_a-new-captcha")).status).toBe(200);
    standIn.webhook = { status: 200, text: "ok" };
    await until(async () => (await undeliveredJobs()) === 0, { what: "an empty queue", timeoutMs: 30_000 });
    const attempts = attemptsFor(email);
    expect(attempts.filter((hit) => hit.status === 200)).toHaveLength(1);
    expect(new Set(attempts.map((hit) => hit.headers["idempotency-key"])).size).toBe(1);
  });

  it("an instance SIGKILLed with deliveries in flight: another instance delivers them", async () => {
    const doomed = await start();
    standIn.webhook = { status: 200, text: "ok", delayMs: 60_000 };
    const emails = ["um@exemplo.com.br", "dois@exemplo.com.br", "tres@exemplo.com.br"];
    for (const email of emails) expect((await send(doomed, email)).status).toBe(200);
    await standIn.arrived("webhook", emails.length);
    doomed.process.kill("SIGKILL");
    standIn.webhook = { status: 200, text: "ok" };
    const survivor = await start();
    // The dead worker's locks lapse, and the survivor's stalled check takes the jobs up again, saying so.
    await delivered(emails.length, 4 * LOCK_MS);
    expect(new Set(standIn.deliveredEmails())).toEqual(new Set(emails));
    const takenOver = deliveryLines(survivor).filter((line) => line.event === "delivery-taken-over");
    expect(takenOver.map((line) => line.email).sort()).toEqual([
      "d***@exemplo.com.br",
      "t***@exemplo.com.br",
      "u***@exemplo.com.br",
    ]);
  }, 60_000);

  it("Redis restarted (append-only) with deliveries waiting: delivered once it is back", async () => {
    const persistent = await startRedis({ persistent: true });
    try {
      const app = await start({ REDIS_URL: persistent.url });
      standIn.webhook = { status: 503, text: "" };
      const emails = Array.from({ length: 10 }, (_, index) => `espera${index}@exemplo.com.br`);
      for (const email of emails) expect((await send(app, email)).status).toBe(200);
      await until(() => emails.every((email) => attemptsFor(email).length >= 1), { what: "first attempts" });
      await persistent.kill();
      await persistent.restart();
      standIn.webhook = { status: 200, text: "ok" };
      await delivered(emails.length, 60_000);
      expect(new Set(standIn.deliveredEmails())).toEqual(new Set(emails));
      await app.stop(); // before its Redis, or its stop waits for it
    } finally {
      await persistent.stop();
    }
  });

  it("a 400 is dead-lettered on its first attempt, listed and counted; re-queued and refused again, counted again; re-queued, found 'already re-queued' by a second retry, and delivered once the webhook is back", async () => {
    const app = await start({ METRICS_TOKEN });
    const counted = async () => sumOf(await scrapeMetrics(app.origin, METRICS_TOKEN), "signup_dead_letters_total");
    expect(await counted()).toBe(0);
    standIn.webhook = { status: 400, text: "campo email ausente" };
    await send(app, "recusada@exemplo.com.br");
    await deadLettered(1);
    expect(attemptsFor("recusada@exemplo.com.br")).toHaveLength(1);
    const listed = await deadLetters("list");
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^\S{43} {2}\S+Z {2}1 attempts {2}webhook answered 400 {2}recusada@exemplo\.com\.br$/);
    expect(app.output()).toMatch(/"event":"delivery-dead-lettered".*configuration error of the webhook/);
    await until(async () => (await counted()) === 1, { what: "the dead letter counted" });

    const id = listed.out.split(" ")[0]!;
    expect(await deadLetters("retry", id)).toEqual({ code: 0, out: "re-queued 1 of 1" });
    await until(async () => (await counted()) === 2, { what: "the second dead letter counted" });
    expect(attemptsFor("recusada@exemplo.com.br")).toHaveLength(2);

    standIn.webhook = { status: 503, text: "" };
    expect(await deadLetters("retry", id)).toEqual({ code: 0, out: "re-queued 1 of 1" });
    expect(await deadLetters("retry", id)).toEqual({ code: 0, out: "re-queued 0 of 1 (1 already re-queued)" });
    standIn.webhook = { status: 200, text: "ok" };
    await delivered(1);
    expect(standIn.deliveredEmails()).toEqual(["recusada@exemplo.com.br"]);
    expect(await deadLetters("list")).toEqual({ code: 0, out: "no dead-lettered sign-ups" });
    expect(await deadLetters("drop", id)).toMatchObject({ code: 1 });
    expect(await deadLetters("purge")).toMatchObject({ code: 2 });
  }, 60_000);

  it("a later sign-up of an address replaces its dead letter and is delivered; within the hour it is the same sign-up; over an hour later it is delivered again; each replacement says so", async () => {
    const app = await start();
    const email = "de-novo@exemplo.com.br";
    standIn.webhook = { status: 400, text: "campo email ausente" };
    await send(app, email);
    await deadLettered(1);
    standIn.webhook = { status: 200, text: "ok" };
    await forgetTheDay();
    expect((await send(app, email, "P1_another-day")).status).toBe(200);
    await delivered(1);
    expect(await deadLetters("list")).toEqual({ code: 0, out: "no dead-lettered sign-ups" });
    await forgetTheDay();
    expect((await send(app, email, "P1_within-the-hour")).status).toBe(200);
    await app.printed(/"event":"delivery-already-delivered"/);
    // BullMQ keeps a delivered job until another completes past its age: the hour is over.
    const job = `prevly-landing:${QUEUE_NAME}:${JSON.parse((/"job":("[^"]+")/.exec(app.output()) ?? [])[1]!)}`;
    await redis().cli("HSET", job, "finishedOn", String(Date.now() - 2 * 60 * 60 * 1000));
    await forgetTheDay();
    expect((await send(app, email, "P1_the-next-day")).status).toBe(200);
    await until(() => attemptsFor(email).length === 3, { what: "the second delivery" });
    expect(
      attemptsFor(email).map((hit) => [hit.status, (hit.body as { hcaptchaToken: string }).hcaptchaToken]),
    ).toEqual([
      [400, "P1_de-novo@exemplo.com.br"],
      [200, "P1_another-day"],
      [200, "P1_the-next-day"],
    ]);
    const replaced = app.output().match(/"event":"delivery-job-replaced".*"earlier":"[^"]+"/g);
    expect(replaced?.map((line) => line.replace(/.*"earlier":/, ""))).toEqual(['"dead letter"', '"delivered"']);
  });

  it("two `retry --all` at once over 300 dead letters: each sign-up delivered once, both runs exit 0", async () => {
    const app = await start();
    standIn.webhook = { status: 400, text: "campo email ausente" };
    const emails = Array.from({ length: 300 }, (_, index) => `morta${index}@exemplo.com.br`);
    // Each visitor sends again until accepted: what is under test is the command, not acceptance under load.
    await pMap(
      emails,
      async (email) => {
        for (let tries = 0; tries < 5 && (await send(app, email, `P1_${email}-${tries}`)).status !== 200; tries++);
      },
      { concurrency: 5 },
    );
    await deadLettered(300, 30_000);
    standIn.webhook = { status: 200, text: "ok" };
    const runs = await Promise.all([deadLetters("retry", "--all"), deadLetters("retry", "--all")]);
    expect(runs.map(({ code }) => code)).toEqual([0, 0]);
    // What one run re-queued, the other found re-queued, or already delivered by then (of what each run listed).
    const summary = /^re-queued (\d+) of \d+(?: \((?:\d+ already re-queued|\d+ already delivered|, )+\))?$/;
    expect(runs.map(({ out }) => out)).toEqual([expect.stringMatching(summary), expect.stringMatching(summary)]);
    expect(runs.reduce((sum, { out }) => sum + Number(summary.exec(out)![1]), 0)).toBe(300);
    await delivered(300, 60_000);
    for (const email of emails) expect(attemptsFor(email).filter((hit) => hit.status === 200)).toHaveLength(1);
  }, 90_000);

  it("the dead-letter command gives up on a frozen Redis with one line and exit code 1", async () => {
    redis().freeze();
    try {
      expect(await deadLetters("list")).toEqual({ code: 1, out: "Redis did not answer within 3 s" });
    } finally {
      redis().thaw();
    }
  });

  it("SIGTERM with deliveries in flight: one answered during the drain is delivered, one longer than the drain is cut and handed back; the process exits 0, and the next instance delivers what was cut, nothing twice", async () => {
    // Attempts of the default 30 s: longer than the drain.
    const doomed = await start({ RELAY_ATTEMPT_SECONDS: "" });
    standIn.webhook = { status: 200, text: "ok", hold: true };
    for (const email of ["a-tempo@exemplo.com.br", "cortada@exemplo.com.br"]) await send(doomed, email);
    await standIn.arrived("webhook", 2);
    const exitCode = doomed.stop();
    await doomed.printed(/"event":"shutdown"/);
    standIn.webhook = { status: 200, text: "ok" };
    standIn.releaseWebhook("a-tempo@exemplo.com.br");
    expect(await exitCode).toBe(0);
    expect(standIn.deliveredEmails()).toEqual(["a-tempo@exemplo.com.br"]);
    expect(doomed.output()).toMatch(/"event":"delivery-attempt-failed","job":"[^"]+","attempt":1,"error":"stopping"/);
    // A new worker finds only what was cut left to deliver, then a later sign-up.
    await send(await start(), "depois@exemplo.com.br");
    await delivered(3);
    expect(attemptsFor("cortada@exemplo.com.br").map((hit) => hit.status)).toEqual([0, 200]);
    expect(standIn.relayedEmails().sort()).toEqual(
      ["a-tempo@exemplo.com.br", "cortada@exemplo.com.br", "cortada@exemplo.com.br", "depois@exemplo.com.br"].sort(),
    );
  });
});

describe("/metrics", () => {
  /** What a scrape of `app` shows now, summed as PromQL's sum() would. */
  const scraped = async (app: RunningApp) => {
    const samples = await scrapeMetrics(app.origin, METRICS_TOKEN);
    return (name: string, labels?: Record<string, string>) => sumOf(samples, name, labels);
  };

  it("shows sign-ups, siteverify calls by result, attempts, delivery time, the queue and visitors' answers by status class, as sign-ups go (at 0 from the start, and without the token: unit/metrics)", async () => {
    const app = await start({ METRICS_TOKEN, ...standIn.captchaSettings });
    const results = ["valid", "invalid", "error", "timeout"];
    standIn.siteverify = { success: false };
    expect((await send(app, "recusada@exemplo.com.br")).status).toBe(400);
    standIn.siteverify = { success: true, status: 500 };
    expect((await send(app, "erro@exemplo.com.br")).status).toBe(502);
    standIn.siteverify = { success: true, delayMs: SITEVERIFY_TIMEOUT_MS + 1_000 };
    expect((await send(app, "lenta@exemplo.com.br")).status).toBe(502);
    // Queued last, its first retry is due as the webhook comes back.
    [standIn.siteverify, standIn.webhook] = [{ success: true }, { status: 503, text: "" }];
    expect((await send(app, "medida@exemplo.com.br")).status).toBe(200);
    const delayed = { state: "delayed" };
    await until(async () => (await scraped(app))("signup_queue_jobs", delayed) === 1, {
      what: "the job waiting for its retry",
    });
    const during = await scraped(app);
    for (const result of results) expect(during("siteverify_calls_total", { result })).toBe(1);
    // The two 502s, the refused captcha and the accepted sign-up; the probes and scrapes are not visitors.
    const answered = (statusClass: string) => during("http_responses_total", { status_class: statusClass });
    expect([answered("5xx"), answered("4xx"), answered("2xx")]).toEqual([2, 1, 1]);
    expect(during("signups_total", { outcome: "queued" })).toBe(1);
    expect(during("webhook_attempts_total", { result: "5xx" })).toBeGreaterThanOrEqual(1);
    expect(during("signup_queue_oldest_undelivered_seconds")).toBeGreaterThan(0);
    expect(during("signup_queue_jobs", { state: "failed" })).toBe(0);

    standIn.webhook = { status: 200, text: "ok" };
    await delivered(1);
    await until(async () => (await scraped(app))("signup_delivery_seconds_count") === 1, {
      what: "the delivery counted",
    });
    const after = await scraped(app);
    expect(after("webhook_attempts_total", { result: "2xx" })).toBe(1);
    expect(after("signup_queue_jobs", delayed)).toBe(0);
    expect(after("signup_queue_oldest_undelivered_seconds")).toBe(0);
  });
});
