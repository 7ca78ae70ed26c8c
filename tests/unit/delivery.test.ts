import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createDelivery } from "~/delivery/delivery.server";
import { FIRST_RETRY_MS, MAX_RETRY_INTERVAL_MS, nextAttemptInMs } from "~/delivery/queue.server";
import type { Submission } from "~/delivery/submission";
import { isRetryable, retryAfterMs, WebhookClient, type WebhookAnswer } from "~/delivery/webhook.server";
import { parseSettings } from "~/server/settings.server";
import { standInPerFile } from "../harness/stand-in-per-file";

const standIn = standInPerFile();

const SUBMISSION: Submission = {
  email: "ana@exemplo.com.br",
  hcaptchaToken: "P1_token",
  source: "prevly-landing",
  ts: "2026-11-23T12:00:00.000Z",
  userAgent: "Mozilla/5.0",
};
const KEY = "tq0dk1Y0w4ZgB3cJx1b0y5mIkVtQ7rHnY2pL9sEaWfA";

describe("every POST to the webhook", () => {
  it("carries the submission's Idempotency-Key, asks for no compression, and is neither signed nor authorised unless the settings say (its five fields: unit/pipeline)", async () => {
    await new WebhookClient(standIn.webhookUrl, undefined).post(SUBMISSION, { key: KEY, timeoutMs: 1_000 });
    const sent = standIn.received.webhook[0]!.headers;
    expect(sent).toMatchObject({ "idempotency-key": KEY, "accept-encoding": "identity" });
    expect([sent["x-signup-signature"], sent.authorization]).toEqual([undefined, undefined]);
  });

  it("as the settings configure it: the URL's credentials as Basic auth, and with WEBHOOK_SIGNING_SECRET a Stripe-style signature of the body", async () => {
    const url = new URL(standIn.webhookUrl);
    url.username = "n8n";
    url.password = "s3nh@ forte";
    const signingSecret = "whsec-0123456789abcdef";
    const { relay } = createDelivery(parseSettings({ WEBHOOK_URL: url.href, WEBHOOK_SIGNING_SECRET: signingSecret }));
    expect(await relay(SUBMISSION, { key: KEY, timeoutMs: 1_000 })).toEqual({ kind: "delivered" });
    const [hit] = standIn.received.webhook;
    expect(hit!.headers.authorization).toBe(`Basic ${Buffer.from("n8n:s3nh@ forte").toString("base64")}`);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit!.headers["x-signup-signature"]))!;
    const sign = (secret: string) => createHmac("sha256", secret).update(`${t}.${hit!.raw}`).digest("hex");
    expect(v1).toBe(sign(signingSecret));
    expect(v1).not.toBe(sign("another-secret-0123456789"));
  });
});

describe("a 2xx is a delivery the moment its status line arrives", () => {
  const post = () => new WebhookClient(standIn.webhookUrl, undefined).post(SUBMISSION, { key: KEY, timeoutMs: 2_000 });

  it.each([
    ["whose body trickles past the timeout", { trickleMs: 4_000 }],
    ["cut before its Content-Length", "cut-short"],
    ["labelled gzip without being gzip", "false-gzip"],
  ] as const)("a 200 %s is delivered", async (_case, bodyFault) => {
    standIn.webhook = { status: 200, bodyFault };
    expect(await post()).toEqual({ kind: "delivered" });
  });

  it("an error status whose body breaks off is still that status, retried as such", async () => {
    standIn.webhook = { status: 503, bodyFault: "cut-short" };
    expect(await post()).toMatchObject({ kind: "status", status: 503, cut: true });
  });

  it("an error answer of 10 MB is read no further than its start (what a visitor may see of it: unit/webhook-error-text)", async () => {
    standIn.webhook = { status: 500, bodyBytes: 10 * 1024 * 1024 };
    expect(await post()).toMatchObject({ kind: "status", status: 500, cut: true, text: expect.stringMatching(/^x+$/) });
    await standIn.webhookDone();
    expect(standIn.bodyBytesSent).toBeLessThan(10 * 1024 * 1024);
  });
});

describe("what is tried again", () => {
  const status = (code: number, text = ""): Exclude<WebhookAnswer, { kind: "delivered" }> => ({
    kind: "status",
    status: code,
    statusText: "",
    text,
    cut: false,
    retryAfterMs: null,
  });

  const notRegistered = JSON.stringify({
    code: 404,
    message: 'The requested webhook "POST abc-123" is not registered.',
  });
  it.each([
    ...[408, 425, 429, 500, 502, 503, 504, 524].map((code) => [String(code), status(code)] as const),
    ["n8n's 'not registered' 404 (a workflow switched off or redeployed)", status(404, notRegistered)],
    ["no answer (a timeout, a refused or reset connection)", { kind: "unreachable", reason: "timeout" }],
  ] as const)("%s is retried", (_case, answer) => {
    expect(isRetryable(answer)).toBe(true);
  });

  it.each([301, 400, 401, 403, 404, 410, 413, 422])("%i is a configuration error, dead-lettered at once", (code) => {
    expect(isRetryable(status(code))).toBe(false);
  });

  it("reads Retry-After in seconds or as a date", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    expect(retryAfterMs("3", now)).toBe(3_000);
    expect(retryAfterMs("Mon, 23 Nov 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs("soon", now)).toBeNull();
  });
});

describe("the backoff", () => {
  /** Far from the end of its retry window. */
  const retryDelayMs = (attempt: number, retryAfter: number | null, random: () => number) =>
    nextAttemptInMs(attempt, retryAfter, Infinity, 0, random);

  it("starts within seconds, doubles with jitter, and is never more than an hour", () => {
    const lowest = () => 0;
    const highest = () => 1;
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, null, highest))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(1, null, lowest)).toBe(FIRST_RETRY_MS / 2);
    expect(retryDelayMs(40, null, highest)).toBe(MAX_RETRY_INTERVAL_MS);
    expect(retryDelayMs(40, null, lowest)).toBe(MAX_RETRY_INTERVAL_MS / 2);
  });

  it("never retries sooner than Retry-After asks (up to an hour)", () => {
    expect(retryDelayMs(1, 3_000, () => 1)).toBe(3_000);
    expect(retryDelayMs(1, 10 * MAX_RETRY_INTERVAL_MS, () => 1)).toBe(MAX_RETRY_INTERVAL_MS);
  });

  it("keeps trying for RELAY_RETRY_HOURS (72 by default), the last attempt on the window's end", () => {
    const windowMs = parseSettings({}).RELAY_RETRY_HOURS * 60 * 60 * 1000;
    expect(windowMs).toBe(72 * 60 * 60 * 1000);
    for (const random of [() => 0, () => 0.5, () => 1]) {
      let elapsed = 0;
      let attempts = 1;
      for (let delay; (delay = nextAttemptInMs(attempts, null, windowMs, elapsed, random)) !== null; attempts++) {
        elapsed += delay;
      }
      expect(elapsed).toBe(windowMs);
      expect(attempts).toBeGreaterThan(80);
      expect(attempts).toBeLessThan(160);
    }
  });

  it("a Retry-After past the window's end still gets one last attempt, when it asks", () => {
    const windowEnd = 10 * 60 * 1000;
    const now = windowEnd - 60_000;
    expect(nextAttemptInMs(30, 5 * 60_000, windowEnd, now, () => 1)).toBe(5 * 60_000);
    expect(nextAttemptInMs(30, null, windowEnd, windowEnd)).toBeNull();
  });
});
