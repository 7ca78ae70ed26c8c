import { publicError } from "./webhook-error-text.server";
import type { Relay } from "./submission";
import { WEBHOOK_TIMEOUT_MS, type WebhookClient } from "./webhook.server";

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
