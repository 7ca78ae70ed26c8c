import type { Redis } from "ioredis";
import { onStop } from "~/server/graceful-stop.server";
import type { Metrics } from "~/server/metrics.server";
import type { Settings } from "~/server/settings.server";
import { DeliveryQueue } from "./queue.server";
import { RedisDurability } from "./redis-durability.server";
import { directRelay } from "./relay.server";
import type { Relay } from "./submission";
import { SignupSink } from "./sink.server";
import { resultOf, WebhookClient } from "./webhook.server";

export type Delivery = {
  relay: Relay;
  /** Whether sign-ups can be taken now: the local file is writable (a webhook is not probed). */
  healthy: () => Promise<boolean>;
  /** For /readyz: why sign-ups cannot be acknowledged now beyond the file's health (a Redis that evicts), or null. */
  refusal: () => Promise<string | null>;
  /** Sign-ups are queued: the automation's rate is kept by the queue's workers, not at acceptance. */
  queued: boolean;
};

/**
 * Queued mode's workers start here and stop with the server; `redis` is the shared state's client or, with replicas
 * required, a connection of the queue's own.
 */
export function createDelivery(
  settings: Settings,
  { metrics, redis }: { metrics?: Metrics; redis?: Redis } = {},
): Delivery {
  if (!settings.WEBHOOK_URL) {
    const sink = new SignupSink(settings.SIGNUPS_FILE);
    return { relay: sink.append, healthy: () => sink.healthy(), refusal: async () => null, queued: false };
  }
  const onDelivered = (latencyMs: number) => metrics?.delivered(latencyMs);
  const webhook = new WebhookClient(settings.WEBHOOK_URL, settings.WEBHOOK_SIGNING_SECRET, (answer) =>
    metrics?.attempt(resultOf(answer)),
  );
  const healthy = async () => true;
  if (settings.RELAY_MODE === "direct") {
    return { relay: directRelay(webhook, onDelivered), healthy, refusal: async () => null, queued: false };
  }

  const durability = new RedisDurability(redis!, settings.REDIS_MIN_REPLICAS);
  durability.refuseStartUnlessKept();
  const queue = new DeliveryQueue(redis!, settings.SIGNUP_SOURCE, settings.REDIS_MIN_REPLICAS);
  queue.start({ webhook, settings, onDelivered, onDeadLettered: () => metrics?.deadLettered() });
  metrics?.watch(queue);
  onStop(() => queue.stop());
  // Nothing is acknowledged that a Redis evicting keys, or one without its replicas, could lose.
  const relay: Relay = async (submission, options) => {
    const refusal = await durability.refusal();
    return refusal ? { kind: "queue", reason: refusal } : queue.relay(submission, options);
  };
  return { relay, healthy, refusal: () => durability.refusal(), queued: true };
}
