import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { DRAIN_LIMIT_MS } from "~/server/graceful-stop.server";
import { logEvent, maskEmail, reasonOf } from "~/server/log.server";
import type { Settings } from "~/server/settings.server";
import type { DeliveryResult, Relay, Submission } from "./submission";
import { describe, isRetryable, type FailedAnswer, type WebhookClient } from "./webhook.server";

/** The first retry comes within this (a blip must cost seconds), each next one up to twice as late… */
export const FIRST_RETRY_MS = 1_000;
/** …until they are this far apart. */
export const MAX_RETRY_INTERVAL_MS = 60 * 60 * 1000;
const DELIVERY_CONCURRENCY = 8;

/**
 * From RELAY_ATTEMPT_SECONDS, how long one queued attempt may take (nobody waits for it: it gets the time an
 * automation takes). Its job's lock is half as long again, so the lock taken as it begins outlives it even if no
 * renewal reaches Redis (an instance or Redis paused mid-attempt): a job is taken over only from a worker that is
 * gone. Renewed every half while its worker lives; a dead worker's job is taken over within the lock plus one
 * stalled check, a third of it.
 */
function deliveryTimings(attemptSeconds: number) {
  const attemptMs = attemptSeconds * 1000;
  const lockMs = attemptMs * 1.5;
  return { attemptMs, lockMs, stalledCheckMs: lockMs / 3 };
}

/**
 * On a stop, attempts still running this long after it are cut, and handed back as failed attempts (retried
 * soon, by any instance) before the drain ends (decision 003): left running, their jobs would wait for the lock.
 */
const STOP_CUTS_ATTEMPTS_AFTER_MS = DRAIN_LIMIT_MS - 1_500;
/** Each time a worker died mid-attempt counts as a stall; past this many the job is dead-lettered. */
const MAX_STALLS = 10;
/**
 * Tried until its retry window is over (the backoff ends it); kept an hour once delivered, so its id (the sign-up)
 * is not queued again meanwhile; kept when it failed for good, as the dead-letter list.
 */
const DELIVERED_KEPT_SECONDS = 60 * 60;
const JOB_OPTIONS = {
  attempts: Number.MAX_SAFE_INTEGER,
  backoff: { type: "window" },
  removeOnComplete: { age: DELIVERED_KEPT_SECONDS },
  removeOnFail: false,
};
export const QUEUE_NAME = "delivery";
/**
 * With REDIS_MIN_REPLICAS, how long a sign-up waits for the replicas to confirm its job (Redis's WAIT): well within
 * the shared state's command bound, and a visitor's patience.
 */
const REPLICA_WAIT_MS = 500;

/** What became of a dead letter ops asked about; `gone`: no job has that id (dropped, or never one). */
export type Resolution = "re-queued" | "dropped" | "already re-queued" | "already delivered" | "gone";

/** Where a job that is no dead letter (any more) went. */
const afterResolution = (state: string): Resolution =>
  state === "unknown" ? "gone" : state === "completed" ? "already delivered" : "already re-queued";

/**
 * `retryFrom`: when its retry window began (it restarts when ops re-queue it). Both may be missing from a job a
 * Redis that evicts keys has emptied: BullMQ then hands out the job's id with no data.
 */
type DeliveryJob = { submission?: Submission; retryFrom?: number };

type Workers = {
  webhook: WebhookClient;
  /** The retry window, and deliveries a second across every instance: what the automation accepts. */
  settings: Pick<Settings, "RELAY_RETRY_HOURS" | "RELAY_LIMIT_PER_SECOND" | "RELAY_ATTEMPT_SECONDS">;
  onDelivered: (latencyMs: number) => void;
  /** A job failed for good: one more dead letter (the alert on new ones reads their count). */
  onDeadLettered: () => void;
};

/** A failed attempt worth trying again. */
class RetryLater extends Error {
  constructor(readonly answer: FailedAnswer) {
    super(describe(answer));
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

const LOST_ADVICE =
  "Redis dropped the job's data (maxmemory-policy must be noeviction); the visitor must sign up again";

/** The e-mail as the log shows it: masked, or what became of a sign-up Redis lost. */
const loggedEmail = (data: DeliveryJob | undefined) =>
  data?.submission ? maskEmail(data.submission.email) : "(sign-up lost)";

/** Queued delivery (docs/decisions/016-…): a job's id is its sign-up's id; the failed set is the dead-letter list. */
export class DeliveryQueue {
  private readonly queue: Queue<DeliveryJob>;
  private worker: Worker<DeliveryJob> | null = null;
  /** Aborted when a stop has waited long enough for the attempts in flight. */
  private readonly stopping = new AbortController();
  /** Jobs a failed attempt left to be tried again, by when they were accepted. */
  private readonly undeliveredKey: string;
  /** The WAIT the sign-ups queued meanwhile share, until it is answered. */
  private pendingWait: Promise<number> | null = null;

  /**
   * `redis`: the shared state's, or with `minReplicas` one of its own timed as it is (its WAIT then counts the queue's
   * writes alone and holds back no other command), failing fast (nothing acknowledged that Redis did not take).
   * `minReplicas` (REDIS_MIN_REPLICAS): replicas that must hold a job before its sign-up is acknowledged.
   */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly minReplicas = 0,
  ) {
    this.queue = new Queue<DeliveryJob>(QUEUE_NAME, { connection: redis, prefix });
    this.queue.on("error", () => undefined); // redis-state.server.ts logs the outages
    this.undeliveredKey = `${prefix}:${QUEUE_NAME}:undelivered`;
  }

  /**
   * One atomic step: a job is in Redis or not, never half there. BullMQ adds a job id once, so a retry of a sign-up
   * whose enqueue was applied finds its job. A later sign-up of the same address (its day in the ledger over) must
   * not be swallowed by an earlier job under that id: a dead letter, or a delivery older than an hour (BullMQ prunes
   * delivered jobs only as others complete), is replaced by it; a delivery within the hour is this sign-up's own.
   */
  readonly relay: Relay = async (submission, { key }) => {
    try {
      const earlier = await this.queue.getJob(key);
      const state = earlier ? await earlier.getState() : "unknown";
      const delivered = state === "completed";
      const deliveredLongAgo = delivered && Date.now() - (earlier?.finishedOn ?? 0) > DELIVERED_KEPT_SECONDS * 1000;
      const email = maskEmail(submission.email);
      if (state === "failed" || deliveredLongAgo) {
        // Gone already if another instance replaced it first; the add below then finds that one's job.
        await earlier!.remove().catch(() => undefined);
        logEvent("delivery-job-replaced", { job: key, earlier: delivered ? "delivered" : "dead letter", email });
      } else if (delivered) {
        logEvent("delivery-already-delivered", { job: key, email });
        return { kind: "queued" };
      }
      await this.queue.add("signup", { submission, retryFrom: Date.now() }, { ...JOB_OPTIONS, jobId: key });
      return await this.heldByReplicas();
    } catch (error) {
      return { kind: "queue", reason: reasonOf(error) };
    }
  };

  /**
   * WAIT counts the replicas holding every write this connection sent, the job just added included. Unconfirmed,
   * the visitor is told to try again; a job that did reach Redis is then found under its id, not queued twice.
   */
  private async heldByReplicas(): Promise<DeliveryResult> {
    if (!this.minReplicas) return { kind: "queued" };
    const held = await this.nextWait();
    if (held >= this.minReplicas) return { kind: "queued" };
    return { kind: "queue", reason: `${held} of ${this.minReplicas} replicas confirmed within ${REPLICA_WAIT_MS} ms` };
  }

  /**
   * One WAIT for every sign-up whose job was added before it is answered (Redis answers a connection in order, so
   * an add answered first was ahead of it): Redis holds back the connection's other commands while a WAIT is
   * blocked, so one per sign-up, or a second sent behind the first, would queue sign-ups behind the replicas.
   */
  private nextWait(): Promise<number> {
    this.pendingWait ??= new Promise((resolve) => setImmediate(resolve)).then(() => {
      const wait = this.redis.wait(this.minReplicas, REPLICA_WAIT_MS);
      const answered = () => (this.pendingWait = null);
      wait.then(answered, answered);
      return wait;
    });
    return this.pendingWait;
  }

  start(delivery: Workers): void {
    const retryWindowMs = delivery.settings.RELAY_RETRY_HOURS * 60 * 60 * 1000;
    const { attemptMs, lockMs, stalledCheckMs } = deliveryTimings(delivery.settings.RELAY_ATTEMPT_SECONDS);
    this.worker = new Worker<DeliveryJob>(QUEUE_NAME, (job) => this.deliver(job, delivery, attemptMs), {
      // Workers block waiting for jobs: their own connection, which waits out an outage instead of failing.
      connection: this.redis.duplicate({
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        commandTimeout: undefined,
      }),
      prefix: this.prefix,
      concurrency: DELIVERY_CONCURRENCY,
      limiter: { max: delivery.settings.RELAY_LIMIT_PER_SECOND, duration: 1000 },
      lockDuration: lockMs,
      stalledInterval: stalledCheckMs,
      maxStalledCount: MAX_STALLS,
      settings: {
        backoffStrategy: async (attemptsMade, _type, error, job) => {
          const answer = error instanceof RetryLater ? error.answer : null;
          const data = job?.data as DeliveryJob | undefined;
          const retryFrom = data?.retryFrom ?? job?.timestamp ?? Date.now();
          const retryAfter = answer?.kind === "status" ? answer.retryAfterMs : null;
          const delay = nextAttemptInMs(attemptsMade, retryAfter, retryFrom + retryWindowMs);
          const fields = {
            job: job?.id,
            attempt: attemptsMade,
            ...(answer?.kind === "status" ? { status: answer.status } : { error: answer?.reason ?? reasonOf(error) }),
            email: loggedEmail(data),
          };
          if (delay !== null) {
            logEvent("delivery-attempt-failed", {
              ...fields,
              nextAttemptAt: new Date(Date.now() + delay).toISOString(),
            });
            return delay;
          }
          logEvent("delivery-dead-lettered", { ...fields, reason: "retry window over" });
          if (job?.id) await this.untrack(job.id);
          return -1;
        },
      },
    });
    this.worker.on("error", () => undefined);
    // Told of every failed attempt; only a job failed for good (no retry left, or refused as configured) is finished.
    this.worker.on("failed", (job) => {
      if (job?.finishedOn) delivery.onDeadLettered();
    });
    // The lock of a job's worker lapsed (the instance died or froze mid-attempt): this one delivers it again, under
    // the same Idempotency-Key, and says so (decision 016: at least once).
    this.worker.on("stalled", (jobId) => {
      void this.queue.getJob(jobId).then(
        (job) => logEvent("delivery-taken-over", { job: jobId, email: loggedEmail(job?.data) }),
        () => logEvent("delivery-taken-over", { job: jobId }),
      );
    });
  }

  /** Takes no new job, and waits for the attempts in flight, cutting those still running near the drain's end. */
  async stop(): Promise<void> {
    const cut = setTimeout(() => this.stopping.abort(), STOP_CUTS_ATTEMPTS_AFTER_MS);
    try {
      await this.worker?.close();
    } finally {
      clearTimeout(cut);
    }
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

  /**
   * `retry`: re-queued with a fresh retry window; `drop`: removed for good. Safe to run from two shells at once:
   * BullMQ moves a job out of the failed set in one atomic step, and a run that lost the race reads where it went.
   */
  async resolveDeadLetter(id: string, command: "retry" | "drop"): Promise<Resolution> {
    const job = await this.queue.getJob(id);
    if (!job) return "gone";
    const state = await job.getState();
    if (state !== "failed") return afterResolution(state);
    try {
      if (command === "drop") await job.remove();
      else {
        await job.updateData({ ...job.data, retryFrom: Date.now() });
        await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
      }
      return command === "drop" ? "dropped" : "re-queued";
    } catch (error) {
      const now = await this.queue.getJobState(id);
      if (now === "failed") throw error;
      return afterResolution(now);
    }
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.redis.disconnect();
  }

  private async deliver(job: Job<DeliveryJob>, { webhook, onDelivered }: Workers, attemptMs: number): Promise<void> {
    const { submission } = job.data;
    const attempt = job.attemptsMade + 1;
    // Never POSTed: an empty body would be taken for a delivery. Its visitor was told 'Cadastro realizado!'.
    if (!submission) return this.deadLetter(job, attempt, "sign-up lost", LOST_ADVICE);
    const answer = await webhook.post(submission, {
      key: job.id!,
      timeoutMs: attemptMs,
      signal: this.stopping.signal,
    });
    if (answer.kind === "delivered") {
      const latencyMs = Date.now() - job.timestamp;
      onDelivered(latencyMs);
      logEvent("delivery-delivered", { job: job.id, attempt, latencyMs, email: loggedEmail(job.data) });
      await this.untrack(job.id!);
      return;
    }
    if (isRetryable(answer)) {
      // Watched from its first failure until it is delivered or dead-lettered.
      await this.redis.zadd(this.undeliveredKey, "NX", job.timestamp, job.id!);
      throw new RetryLater(answer);
    }
    // The webhook refuses it as configured: trying again changes nothing.
    return this.deadLetter(
      job,
      attempt,
      describe(answer),
      "a configuration error of the webhook; fix it, then re-queue",
    );
  }

  /** Fails the job for good, into the dead-letter list under `reason`; the log line adds what ops should do. */
  private async deadLetter(job: Job<DeliveryJob>, attempt: number, reason: string, advice: string): Promise<never> {
    logEvent("delivery-dead-lettered", {
      job: job.id,
      attempt,
      reason: `${reason}: ${advice}`,
      email: loggedEmail(job.data),
    });
    await this.untrack(job.id!);
    throw new UnrecoverableError(reason);
  }

  private async untrack(id: string): Promise<void> {
    await this.redis.zrem(this.undeliveredKey, id).catch(() => undefined);
  }
}
