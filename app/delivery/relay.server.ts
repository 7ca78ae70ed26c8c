import { publicError } from "./webhook-error-text.server";
import type { WebhookClient } from "./webhook.server";

/** The JSON body the automation receives, exactly these five fields. */
export type Submission = { email: string; hcaptchaToken: string; source: string; ts: string; userAgent: string };

export type RelayOutcome =
  /** Delivered (direct, sink), or held durably in the queue, which will deliver it. */
  | { ok: true; queued: boolean }
  | { ok: false; kind: "status"; status: number; statusText: string; text: string }
  /** No answer from the webhook (refused, reset, timed out), or the file or the queue (Redis) could not take it. */
  | { ok: false; kind: "unreachable" | "sink" | "queue"; reason: string };

/** `key`: the submission's stable id; `timeoutMs`: what the sign-up has left. */
export type Relay = (submission: Submission, options: { key: string; timeoutMs: number }) => Promise<RelayOutcome>;

/** Direct mode: the visitor waits for the webhook and reads its answer (the spec's error catalogue), never its URL. */
export function directRelay(webhook: WebhookClient, onDelivered: (latencyMs: number) => void): Relay {
  return async (submission, options) => {
    const started = Date.now();
    const answer = await webhook.post(submission, options);
    if (answer.kind === "delivered") {
      onDelivered(Date.now() - started);
      return { ok: true, queued: false };
    }
    if (answer.kind === "unreachable") return { ok: false, kind: "unreachable", reason: answer.reason };
    return { ok: false, kind: "status", status: answer.status, ...publicError(answer, webhook.url) };
  };
}
