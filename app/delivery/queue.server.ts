import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { logEvent } from "~/server/log.server";
import type { Relay, Submission } from "./relay.server";
import { isRetryable, WEBHOOK_TIMEOUT_MS, type WebhookAnswer, type WebhookClient } from "./webhook.server";

/** The first retry comes within this (a blip must cost seconds), each next one up to twice as late… */
export const FIRST_RETRY_MS = 1_000;
/** …until they are this far apart. */
export const MAX_RETRY_INTERVAL_MS = 60 * 60 * 1000;
/** Deliveries one instance makes at once. */
export const DELIVERY_CONCURRENCY = 8;
/**
 * A delivery's lock: renewed every half while its worker lives, so a job whose
 * worker died (SIGKILL, a lost host) is taken up by another instance within
 * this plus one stalled check. It outlasts the webhook's timeout twice.
 */
export const DELIVERY_LOCK_MS = 2 * WEBHOOK_TIMEOUT_MS;
const STALLED_CHECK_MS = WEBHOOK_TIMEOUT_MS;
/** Each time a worker died mid-attempt counts as a stall; past this many the job is dead-lettered. */
const MAX_STALLS = 10;
/** Delivered jobs are kept this long, so their id (the submission) is not queued again meanwhile. */
const KEEP_DELIVERED_SECONDS = 60 * 60;
export const QUEUE_NAME = "delivery";

/** What a job carries: the body to send, and when its retry window began (it restarts when ops re-queue it). */
export type DeliveryJob = { submission: Submission; retryFrom: number };

/** The states ops watch, as /metrics names them. */
export const WATCHED_STATES = ["waiting", "delayed", "active", "failed"] as const;
export type QueueCounts = Record<(typeof WATCHED_STATES)[number], number>;

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
 * Exponential backoff with jitter: attempt n waits between half and all of
 * FIRST_RETRY_MS × 2^(n-1), at most MAX_RETRY_INTERVAL_MS; never sooner than
 * the webhook's Retry-After (itself capped at MAX_RETRY_INTERVAL_MS).
 */
export function retryDelayMs(attemptsMade: number, retryAfterMs: number | null, random = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_INTERVAL_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attemptsMade - 1));
  const jittered = Math.round(ceiling / 2 + (random() * ceiling) / 2);
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_INTERVAL_MS));
}

/**
 * When to try again after attempt `attemptsMade` failed, or null when the
 * retry window (ending at `windowEnd`) is over: the backoff, and the last
 * attempt on the window's end rather than up to one wait before it (or as
 * late as Retry-After asks, at most MAX_RETRY_INTERVAL_MS past the end).
 */
export function nextAttemptInMs(
  attemptsMade: number,
  retryAfterMs: number | null,
  windowEnd: number,
  now = Date.now(),
  random = Math.random,
): number | null {
  if (now >= windowEnd) return null;
  const delay = retryDelayMs(attemptsMade, retryAfterMs, random);
  if (now + delay <= windowEnd) return delay;
  return Math.max(windowEnd - now, Math.min(retryAfterMs ?? 0, MAX_RETRY_INTERVAL_MS));
}

/** Why a delivery attempt failed, for the log and the dead-letter list (never the webhook's URL or text). */
function describe(answer: Exclude<WebhookAnswer, { kind: "delivered" }>): string {
  return answer.kind === "unreachable" ? `no answer (${answer.reason})` : `webhook answered ${answer.status}`;
}

/**
 * Queued delivery (RELAY_MODE=queued) on BullMQ: a verified sign-up is
 * added durably to Redis before its visitor is answered, and workers in every
 * instance deliver it, retrying with backoff for the retry window. The job's
 * id is the sign-up's id (its address's ledger key), so a replay, a double
 * click, the same post on another instance, or a retry whose first answer was
 * lost adds nothing. Jobs that cannot succeed (a 4xx that
 * is not worth retrying) or outlive the window wait in the failed set, the
 * dead-letter list, for ops (`node build/dead-letters.js`).
 */
export class DeliveryQueue {
  readonly queue: Queue<DeliveryJob>;
  private worker: Worker<DeliveryJob> | null = null;
  /** Jobs a failed attempt left to be tried again, by when they were accepted: the oldest one's age is a metric. */
  private readonly undeliveredKey: string;

  /**
   * `redis`: the shared state's client in the server, whose commands fail fast
   * while Redis is away, so a sign-up is never acknowledged that Redis did
   * not take, and /readyz speaks for the queue too. `prefix`: the shared
   * state's key prefix (SIGNUP_SOURCE).
   */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.queue = new Queue<DeliveryJob>(QUEUE_NAME, { connection: redis, prefix });
    this.queue.on("error", () => undefined); // redis-state.server.ts logs the outages
    this.undeliveredKey = `${prefix}:${QUEUE_NAME}:undelivered`;
  }

  /** The relay of queued mode: answered once the job is in Redis. */
  readonly relay: Relay = async (submission, { key }) => {
    try {
      await this.enqueue(key, submission, Date.now());
      return { ok: true, queued: true };
    } catch (error) {
      return { ok: false, kind: "queue", reason: error instanceof Error ? error.message : String(error) };
    }
  };

  /** One atomic step: a job is in Redis or not, never half there. */
  async enqueue(key: string, submission: Submission, retryFrom: number): Promise<void> {
    await this.queue.add(
      "signup",
      { submission, retryFrom },
      {
        jobId: key,
        attempts: Number.MAX_SAFE_INTEGER,
        backoff: { type: "window" },
        removeOnComplete: { age: KEEP_DELIVERED_SECONDS },
        removeOnFail: false,
      },
    );
  }

  /** Starts this instance's workers. */
  start(delivery: {
    webhook: WebhookClient;
    retryWindowMs: number;
    /** Deliveries a second across every instance: what the automation accepts. */
    ratePerSecond: number;
    onDelivered: (latencyMs: number) => void;
  }): void {
    const { retryWindowMs, ratePerSecond } = delivery;
    this.worker = new Worker<DeliveryJob>(QUEUE_NAME, (job) => this.deliver(job, delivery), {
      // Workers block waiting for jobs: their own connection, which waits out an outage instead of failing.
      connection: this.redis.duplicate({
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        commandTimeout: undefined,
      }),
      prefix: this.prefix,
      concurrency: DELIVERY_CONCURRENCY,
      limiter: { max: ratePerSecond, duration: 1000 },
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

  /** Stops taking jobs and waits for the deliveries in flight: none is lost or made twice. */
  async stop(): Promise<void> {
    await this.worker?.close();
  }

  async counts(): Promise<QueueCounts> {
    const counts = await this.queue.getJobCounts("wait", "delayed", "active", "failed", "prioritized");
    return {
      waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
      delayed: counts.delayed ?? 0,
      active: counts.active ?? 0,
      failed: counts.failed ?? 0,
    };
  }

  /**
   * How long the oldest sign-up still to be delivered has waited since it was
   * accepted, in milliseconds (0 when none): the oldest job waiting for a
   * worker, or the oldest one a failed attempt left to be tried again.
   */
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

  /** The dead-letter list: jobs that will not be tried again unless ops re-queue them. */
  deadLetters(): Promise<Array<Job<DeliveryJob>>> {
    return this.queue.getJobs(["failed"], 0, -1, true);
  }

  /** Tries a dead-lettered job again, with a fresh retry window. False when there is no such dead letter. */
  async requeue(id: string, now = Date.now()): Promise<boolean> {
    const job = await this.queue.getJob(id);
    if (!job || (await job.getState()) !== "failed") return false;
    await job.updateData({ ...job.data, retryFrom: now });
    await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  /** Deletes a dead-lettered job for good. False when there is no such dead letter. */
  async drop(id: string): Promise<boolean> {
    const job = await this.queue.getJob(id);
    if (!job || (await job.getState()) !== "failed") return false;
    await job.remove();
    return true;
  }

  /** For a command that used the queue and is done: closes its connections. */
  async close(): Promise<void> {
    await this.queue.close();
    this.redis.disconnect();
  }

  private async deliver(
    job: Job<DeliveryJob>,
    { webhook, onDelivered }: { webhook: WebhookClient; onDelivered: (latencyMs: number) => void },
  ): Promise<void> {
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
    // A 4xx other than those worth retrying: the webhook refuses it as configured. Trying again changes nothing.
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
