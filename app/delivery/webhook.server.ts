import { createHmac } from "node:crypto";
import { failureReason, postWithDeadline } from "~/server/http-client.server";
import { percentDecodedOrAsIs } from "~/server/percent-decoding.server";
import type { DeliveryResult, Submission } from "./submission";

/** What a visitor waiting in direct mode can bear (decision 003); queued attempts get their own. */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Enough of an error answer to show its message; the rest is never downloaded. */
const ERROR_BODY_BYTES = 4096;
/** n8n's answer for a workflow switched off or being redeployed: a 404 worth retrying. */
const N8N_NOT_REGISTERED = /webhook\b[^"]*"[^"]*" is not registered/i;

/** What one POST can end in. */
export type WebhookAnswer = Extract<DeliveryResult, { kind: "delivered" | "status" | "unreachable" }>;
export type FailedAnswer = Exclude<WebhookAnswer, { kind: "delivered" }>;

/** How an answer is counted in /metrics: a bounded set of results. */
export function resultOf(answer: WebhookAnswer): string {
  if (answer.kind === "delivered") return "2xx";
  if (answer.kind === "unreachable") return answer.reason === "timeout" ? "timeout" : "network";
  if (answer.status === 429) return "429";
  return `${Math.floor(answer.status / 100)}xx`;
}

/** Why an attempt failed, for the log and the dead-letter list (never the webhook's URL or text). */
export function describe(answer: FailedAnswer): string {
  return answer.kind === "unreachable" ? `no answer (${answer.reason})` : `webhook answered ${answer.status}`;
}

/** Any other 4xx (and a redirect) is the webhook's configuration, which trying again will not change. */
export function isRetryable(answer: FailedAnswer): boolean {
  if (answer.kind === "unreachable") return true;
  const { status } = answer;
  if (status === 404) return N8N_NOT_REGISTERED.test(answer.text);
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** The five fields with the headers of docs/delivery.md, "What the webhook receives"; fetch refuses a URL holding credentials. */
export class WebhookClient {
  private readonly target: string;
  private readonly authorization: string;

  constructor(
    /** As configured, credentials included: what error texts must never show. */
    readonly url: string,
    private readonly signingSecret: string | undefined,
    private readonly onAnswer: (answer: WebhookAnswer) => void = () => {},
  ) {
    const parsed = new URL(url);
    const credentials = basicCredentials(parsed);
    this.authorization = credentials && `Basic ${credentials}`;
    parsed.username = parsed.password = "";
    this.target = parsed.href;
  }

  /** A 2xx is a delivery the moment its status line arrives; `signal` cuts the attempt short (a stop). */
  async post(submission: Submission, attempt: { key: string; timeoutMs: number; signal?: AbortSignal }) {
    const answer = await this.send(JSON.stringify(submission), attempt);
    this.onAnswer(answer);
    return answer;
  }

  private async send(
    body: string,
    { key, timeoutMs, signal }: { key: string; timeoutMs: number; signal?: AbortSignal },
  ): Promise<WebhookAnswer> {
    const headers: Record<string, string> = { "idempotency-key": key };
    if (this.signingSecret) {
      headers["x-signup-signature"] = webhookSignature(this.signingSecret, body, Math.floor(Date.now() / 1000));
    }
    if (this.authorization) headers.authorization = this.authorization;
    try {
      const answer = await postWithDeadline(this.target, {
        contentType: "application/json",
        body,
        timeoutMs,
        signal,
        maxBodyBytes: ERROR_BODY_BYTES,
        headers,
        successBody: "drain",
      });
      if (answer.ok) return { kind: "delivered" };
      const { status, statusText, text, cut } = answer;
      return { kind: "status", status, statusText, text, cut, retryAfterMs: retryAfterMs(answer.retryAfter) };
    } catch (error) {
      return { kind: "unreachable", reason: failureReason(error) };
    }
  }
}

/** `user:password` as Basic authorization spells them (base64 of the decoded text); "" when the URL holds none. */
function basicCredentials({ username, password }: URL): string {
  if (!username && !password) return "";
  return Buffer.from(`${percentDecodedOrAsIs(username)}:${percentDecodedOrAsIs(password)}`).toString("base64");
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** `X-Signup-Signature`, Stripe's scheme, under a secret of its own (docs/delivery.md, "What the webhook receives"). */
function webhookSignature(secret: string, rawBody: string, unixSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${rawBody}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
