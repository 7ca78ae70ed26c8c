import { BurstyRateLimiter, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

// The sign-up's shared state, one interface over two stores: this process's memory (one instance) or Redis
// (REDIS_URL, several acting as one); the pipeline cannot tell which it has (docs/decisions/007-…).

type Verdict = "allowed" | "limited" | "unavailable";

export type Limit = {
  /** Spends `points` (1) of `key`; `used` counts the points the key has spent in this window, these included. */
  take(key: string, points?: number): Promise<{ verdict: Verdict; used: number }>;
  /** Whether `key` could spend a point now, spending nothing. */
  peek(key: string): Promise<Verdict>;
};

export type LimitSpec = {
  /** Unique per purpose; also the store's key prefix. */
  name: string;
  points: number;
  durationSeconds: number;
  /** More points, once `points` are spent, counted over a window of their own (a token bucket's burst). */
  burst?: { points: number; durationSeconds: number };
  /** Redis away: `local` counts per instance (a ceiling); `refuse` is `unavailable` (a budget for the deployment). */
  whenAway: "local" | "refuse";
};

type LedgerEntry =
  | { state: "relayed" | "in-flight" }
  /** `outcome`: what the failed attempt's visitor was told, for anyone who waited on it. */
  | { state: "failed"; outcome: string }
  /** Never seen, forgotten, or its holder vanished (a killed instance) before settling. */
  | { state: "unknown" };

/** Each submission is relayed at most once across every instance. Throws when the store cannot be reached. */
export type Ledger = {
  /** Atomically, unless relayed or in flight (a failed key may be claimed again); `holder` is unique per attempt. */
  claim(key: string, holdMs: number, holder: string): Promise<"claimed" | "relayed" | "in-flight">;
  /** After a claim whose answer timed out: Redis runs a connection's commands in order, so a late claim is undone. */
  release(key: string, holder: string): Promise<void>;
  read(key: string): Promise<LedgerEntry>;
  /** A relay is kept `relayedTtlMs`, a failure FAILED_TTL_MS. */
  settle(key: string, result: { ok: true } | { ok: false; outcome: string }, relayedTtlMs: number): Promise<void>;
};

/** How long the latest new addresses' relays took, shared so every instance, a restarted one too, knows the pace. */
export type RelayTimes = {
  /** Keeps the latest `keep` durations, this one included. */
  record(durationMs: number, keep: number): Promise<void>;
  recent(): Promise<number[]>;
};

export type SharedState = {
  /** Empty for Redis, which outlives processes; random per process for memory, so what a restart lost can be told. */
  epoch: string;
  limit(spec: LimitSpec): Limit;
  ledger: Ledger;
  relayTimes: RelayTimes;
  /** Why the store cannot take sign-ups now (it does not answer, or refuses a write), as one line; null when it can. */
  unready(): Promise<string | null>;
};

/** How long a failed attempt's outcome is kept for those waiting on it; a retry after it relays afresh. */
export const FAILED_TTL_MS = 15_000;

/** The same in memory and in Redis. */
export const LEDGER_VALUES = { RELAYED: "relayed", IN_FLIGHT: "in-flight", FAILED: "failed:" } as const;

export function ledgerEntry(value: string | null | undefined): LedgerEntry {
  if (value === LEDGER_VALUES.RELAYED) return { state: "relayed" };
  if (value?.startsWith(LEDGER_VALUES.IN_FLIGHT)) return { state: "in-flight" };
  if (value?.startsWith(LEDGER_VALUES.FAILED))
    return { state: "failed", outcome: value.slice(LEDGER_VALUES.FAILED.length) };
  return { state: "unknown" };
}

/** `spec` in a store, by `limiter`: one limiter, or with a burst rate-limiter-flexible's BurstyRateLimiter of two. */
export function limitOf(spec: LimitSpec, limiter: (spec: LimitSpec) => RateLimiterAbstract): Limit {
  const { burst, ...steady } = spec;
  const limiters = [limiter(steady)];
  if (burst) limiters.push(limiter({ ...steady, ...burst, name: `${spec.name}-burst` }));
  const [rate, burstOf] = limiters as [RateLimiterAbstract, RateLimiterAbstract?];
  return limitOver(burstOf ? new BurstyRateLimiter(rate, burstOf) : rate, limiters);
}

/**
 * rate-limiter-flexible rejects with its result when a key is spent, and with an Error when its store fails. A key
 * has room while any of `limiters` (the rate, then the burst) has.
 */
function limitOver(consumer: Pick<RateLimiterAbstract, "consume">, limiters: RateLimiterAbstract[]): Limit {
  return {
    async take(key, points = 1) {
      try {
        return { verdict: "allowed", used: (await consumer.consume(key, points)).consumedPoints };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { verdict: "limited", used: rejection.consumedPoints };
        return { verdict: "unavailable", used: 0 };
      }
    },
    async peek(key) {
      try {
        const used = await Promise.all(limiters.map((limiter) => limiter.get(key)));
        // A memory record past its window may outlive it until its timer fires: counted as spent nothing.
        const spent = used.map((result) => (result && result.msBeforeNext > 0 ? result.consumedPoints : 0));
        return spent.some((points, index) => points < limiters[index]!.points) ? "allowed" : "limited";
      } catch {
        return "unavailable";
      }
    },
  };
}
