import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { logEvent, reasonOf } from "~/server/log.server";
import type { Settings } from "~/server/settings.server";
import type { Relay, Submission } from "./relay.server";
import { isRetryable, WEBHOOK_TIMEOUT_MS, type WebhookAnswer, type WebhookClient } from "./webhook.server";

/** The first retry comes within this (a blip must cost seconds), each next one up to twice as late… */
export const FIRST_RETRY_MS = 1_000;
/** …until they are this far apart. */
export const MAX_RETRY_INTERVAL_MS = 60 * 60 * 1000;
const DELIVERY_CONCURRENCY = 8;
/** Renewed every half while its worker lives: a dead worker's job is taken over within this plus one stalled check. */
export const DELIVERY_LOCK_MS = 2 * WEBHOOK_TIMEOUT_MS;
const STALLED_CHECK_MS = WEBHOOK_TIMEOUT_MS;
/** Each time a worker died mid-attempt counts as a stall; past this many the job is dead-lettered. */
const MAX_STALLS = 10;
/**
 * Tried until its retry window is over (the backoff ends it); kept an hour once delivered, so its id (the sign-up)
 * is not queued again meanwhile; kept when it failed for good, as the dead-letter list.
 */
const JOB_OPTIONS = {
  attempts: Number.MAX_SAFE_INTEGER,
  backoff: { type: "window" },
  removeOnComplete: { age: 60 * 60 },
  removeOnFail: false,
};
export const QUEUE_NAME = "delivery";

/** `retryFrom`: when its retry window began (it restarts when ops re-queue it). */
type DeliveryJob = { submission: Submission; retryFrom: number };

type Workers = {
  webhook: WebhookClient;
  /** The retry window, and deliveries a second across every instance: what the automation accepts. */
  settings: Pick<Settings, "RELAY_RETRY_HOURS" | "RELAY_LIMIT_PER_SECOND">;
  onDelivered: (latencyMs: number) => void;
};

/** A failed attempt worth trying again; `retryAfterMs` from the webhook's Retry-After. */
class RetryLater extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

/**
 * Attempt n waits half to all of FIRST_RETRY_MS × 2^(n-1), capped, never sooner than Retry-After (capped too); null
 * once the window is over, whose end the last attempt lands on, not a wait before it (or as Retry-After asks).
 */
export function nextAttemptInMs(
  attemptsMade: number,
  retryAfterMs: number | null,
  windowEnd: number,
  now = Date.now(),
  random = Math.random,
): number | null {
  if (now >= windowEnd) return null;
  const asked = Math.min(retryAfterMs ?? 0, MAX_RETRY_INTERVAL_MS);
  const ceiling = Math.min(MAX_RETRY_INTERVAL_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attemptsMade - 1));
  const delay = Math.max(Math.round(ceiling / 2 + (random() * ceiling) / 2), asked);
  return now + delay <= windowEnd ? delay : Math.max(windowEnd - now, asked);
}

/** Why a delivery attempt failed, for the log and the dead-letter list (never the webhook's URL or text). */
function describe(answer: Exclude<WebhookAnswer, { kind: "delivered" }>): string {
  return answer.kind === "unreachable" ? `no answer (${answer.reason})` : `webhook answered ${answer.status}`;
}

/** Queued delivery (docs/decisions/016-…): a job's id is its sign-up's id; the failed set is the dead-letter list. */
export class DeliveryQueue {
  private readonly queue: Queue<DeliveryJob>;
  private worker: Worker<DeliveryJob> | null = null;
  /** Jobs a failed attempt left to be tried again, by when they were accepted. */
  private readonly undeliveredKey: string;

  /** `redis`: the shared state's, failing fast (nothing acknowledged that Redis did not take), checked by /readyz. */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.queue = new Queue<DeliveryJob>(QUEUE_NAME, { connection: redis, prefix });
    this.queue.on("error", () => undefined); // redis-state.server.ts logs the outages
    this.undeliveredKey = `${prefix}:${QUEUE_NAME}:undelivered`;
  }

  /** One atomic step: a job is in Redis or not, never half there. */
  readonly relay: Relay = async (submission, { key }) => {
    try {
      await this.queue.add("signup", { submission, retryFrom: Date.now() }, { ...JOB_OPTIONS, jobId: key });
      return { ok: true, queued: true };
    } catch (error) {
      return { ok: false, kind: "queue", reason: reasonOf(error) };
    }
  };

  start(delivery: Workers): void {
    const retryWindowMs = delivery.settings.RELAY_RETRY_HOURS * 60 * 60 * 1000;
    this.worker = new Worker<DeliveryJob>(QUEUE_NAME, (job) => this.deliver(job, delivery), {
      // Workers block waiting for jobs: their own connection, which waits out an outage instead of failing.
      connection: this.redis.duplicate({
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        commandTimeout: undefined,
      }),
      prefix: this.prefix,
      concurrency: DELIVERY_CONCURRENCY,
      limiter: { max: delivery.settings.RELAY_LIMIT_PER_SECOND, duration: 1000 },
      lockDuration: DELIVERY_LOCK_MS,
      stalledInterval: STALLED_CHECK_MS,
      maxStalledCount: MAX_STALLS,
      settings: {
        backoffStrategy: async (attemptsMade, _type, error, job) => {
          const retryAfter = error instanceof RetryLater ? error.retryAfterMs : null;
          const delay = job
            ? nextAttemptInMs(attemptsMade, retryAfter, (job.data as DeliveryJob).retryFrom + retryWindowMs)
            : null;
          if (delay !== null) return delay;
          logEvent("delivery-dead-lettered", { job: job?.id, attempts: attemptsMade, reason: "retry window over" });
          if (job?.id) await this.untrack(job.id);
          return -1;
        },
      },
    });
    this.worker.on("error", () => undefined);
  }

  /** Waits for the deliveries in flight: none is lost or made twice. */
  async stop(): Promise<void> {
    await this.worker?.close();
  }

  async counts() {
    const counts = await this.queue.getJobCounts("wait", "delayed", "active", "failed", "prioritized");
    return {
      waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
      delayed: counts.delayed ?? 0,
      active: counts.active ?? 0,
      failed: counts.failed ?? 0,
    };
  }

  /** Since its acceptance (0 when none): the oldest job waiting for a worker or for its retry. */
  async oldestUndeliveredMs(now = Date.now()): Promise<number> {
    const [waiting] = await this.queue.getJobs(["wait"], 0, 0, true);
    let oldest = waiting?.timestamp ?? now;
    for (;;) {
      const [id, score] = await this.redis.zrange(this.undeliveredKey, 0, 0, "WITHSCORES");
      if (id === undefined) break;
      const state = await this.queue.getJobState(id);
      if (state !== "completed" && state !== "failed" && state !== "unknown") {
        oldest = Math.min(oldest, Number(score));
        break;
      }
      await this.redis.zrem(this.undeliveredKey, id);
    }
    return now - oldest;
  }

  deadLetters(): Promise<Array<Job<DeliveryJob>>> {
    return this.queue.getJobs(["failed"], 0, -1, true);
  }

  /** `retry`: re-queued with a fresh retry window; `drop`: for good. False when there is no such dead letter. */
  async resolveDeadLetter(id: string, command: "retry" | "drop"): Promise<boolean> {
    const job = await this.queue.getJob(id);
    if (!job || (await job.getState()) !== "failed") return false;
    if (command === "drop") await job.remove();
    else {
      await job.updateData({ ...job.data, retryFrom: Date.now() });
      await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
    }
    return true;
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.redis.disconnect();
  }

  private async deliver(job: Job<DeliveryJob>, { webhook, onDelivered }: Workers): Promise<void> {
    const answer = await webhook.post(job.data.submission, { key: job.id!, timeoutMs: WEBHOOK_TIMEOUT_MS });
    if (answer.kind === "delivered") {
      onDelivered(Date.now() - job.timestamp);
      await this.untrack(job.id!);
      return;
    }
    if (isRetryable(answer)) {
      // Watched from its first failure until it is delivered or dead-lettered.
      await this.redis.zadd(this.undeliveredKey, "NX", job.timestamp, job.id!);
      throw new RetryLater(describe(answer), answer.kind === "status" ? answer.retryAfterMs : null);
    }
    // The webhook refuses it as configured: trying again changes nothing.
    logEvent("delivery-dead-lettered", {
      job: job.id,
      attempts: job.attemptsMade + 1,
      reason: `${describe(answer)}: a configuration error of the webhook; fix it, then re-queue`,
    });
    await this.untrack(job.id!);
    throw new UnrecoverableError(describe(answer));
  }

  private async untrack(id: string): Promise<void> {
    await this.redis.zrem(this.undeliveredKey, id).catch(() => undefined);
  }
}
