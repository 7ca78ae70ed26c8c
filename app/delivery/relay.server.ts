import { publicError } from "./webhook-error-text.server";
import { WEBHOOK_TIMEOUT_MS, type WebhookClient } from "./webhook.server";

/** The JSON body the automation receives, exactly these five fields. */
export type Submission = { email: string; hcaptchaToken: string; source: string; ts: string; userAgent: string };

/** What became of a sign-up handed to delivery: one POST's answer, or what the file or the queue made of it. */
export type DeliveryResult =
  /** The webhook answered 2xx (direct, queued), or the line is in the file (sink). */
  | { kind: "delivered" }
  /** Held durably in the queue, which will deliver it. */
  | { kind: "queued" }
  | { kind: "status"; status: number; statusText: string; text: string; cut: boolean; retryAfterMs: number | null }
  /** No answer from the webhook: refused, reset, timed out. */
  | { kind: "unreachable"; reason: string }
  /** The file or the queue (Redis) could not take it. */
  | { kind: "sink" | "queue"; reason: string };

/** `key`: the submission's stable id; `timeoutMs`: what the sign-up has left. */
export type Relay = (submission: Submission, options: { key: string; timeoutMs: number }) => Promise<DeliveryResult>;

/** Direct mode: the visitor waits for the webhook and reads its answer (the spec's error catalogue), never its URL. */
export function directRelay(webhook: WebhookClient, onDelivered: (latencyMs: number) => void): Relay {
  return async (submission, options) => {
    const started = Date.now();
    const answer = await webhook.post(submission, {
      key: options.key,
      timeoutMs: Math.min(options.timeoutMs, WEBHOOK_TIMEOUT_MS),
    });
    if (answer.kind === "delivered") onDelivered(Date.now() - started);
    if (answer.kind !== "status") return answer;
    return { ...answer, ...publicError(answer, webhook.url) };
  };
}
