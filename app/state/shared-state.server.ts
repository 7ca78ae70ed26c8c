import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

/**
 * Where the sign-up's shared state lives: the limits and budgets, and the
 * ledger that relays each submission once. One interface, two stores: this
 * process's memory (the embedded default, one instance) or Redis (`REDIS_URL`,
 * several instances acting as one). The pipeline cannot tell which it has.
 */

/** A limit asked about one key: spent, refused, or not answerable now (the store is away). */
export type LimitVerdict = "allowed" | "limited" | "unavailable";

export type Limit = {
  /** Spends `points` (1) of `key`; `used` counts the points the key has spent in this window, these included. */
  take(key: string, points?: number): Promise<{ verdict: LimitVerdict; used: number }>;
  /** Gives points of `key` back: what they paid for did not happen, or succeeded. Best effort. */
  refund(key: string, points?: number): Promise<void>;
  /** Spends points of `key` whatever is left. Best effort. */
  charge(key: string, points?: number): Promise<void>;
  /** The points `key` has spent in this window; 0 when the store cannot say. */
  used(key: string): Promise<number>;
};

export type LimitSpec = {
  /** Unique per purpose; also the store's key prefix. */
  name: string;
  points: number;
  durationSeconds: number;
  /**
   * While Redis is away: `local` keeps limiting in this process alone (good
   * enough for a ceiling that protects others); `refuse` answers
   * `unavailable` (for a budget that must hold for the whole deployment).
   */
  whenAway: "local" | "refuse";
};

/** What the ledger knows of one submission. */
export type LedgerEntry =
  | { state: "relayed" }
  | { state: "in-flight" }
  /** The last attempt failed; `outcome` is what its visitor was told, for anyone who waited on it. */
  | { state: "failed"; outcome: string }
  /** Never seen, forgotten, or its holder vanished (a killed instance) before settling. */
  | { state: "unknown" };

/**
 * Each submission (e-mail + proof) is relayed at most once across every
 * instance: the first to claim it relays, the others wait for its outcome.
 * Throws when the store cannot be reached.
 */
export type Ledger = {
  /**
   * Atomically claims `key` for `holdMs` in the name of `holder` (unique per
   * attempt) unless it was relayed or is in flight; a failed key may be
   * claimed again.
   */
  claim(key: string, holdMs: number, holder: string): Promise<"claimed" | "relayed" | "in-flight">;
  /**
   * Gives up `holder`'s claim if it still stands. Sent after a claim whose
   * answer timed out: Redis runs a connection's commands in order, so the
   * claim, if it was applied late, is undone right after it.
   */
  release(key: string, holder: string): Promise<void>;
  read(key: string): Promise<LedgerEntry>;
  /** Records the outcome: a relay for `relayedTtlMs`, a failure for FAILED_TTL_MS. */
  settle(key: string, result: { ok: true } | { ok: false; outcome: string }, relayedTtlMs: number): Promise<void>;
};

export type SharedState = {
  kind: "memory" | "redis";
  /**
   * Names this state's lifetime: empty for Redis, which outlives processes;
   * random per process for memory, so what was signed against state that a
   * restart lost can be told apart.
   */
  epoch: string;
  limit(spec: LimitSpec): Limit;
  ledger: Ledger;
  /** Readiness: whether the store answers now. */
  ready(): Promise<boolean>;
};

/** How long a failed attempt's outcome is kept for those waiting on it; a retry after it relays afresh. */
export const FAILED_TTL_MS = 15_000;
/** How many submissions one instance's memory remembers at most; the oldest go first. */
export const MEMORY_LEDGER_ENTRIES = 200_000;

/** The ledger's stored values, the same in memory and in Redis. */
export const LEDGER_VALUES = { RELAYED: "relayed", IN_FLIGHT: "in-flight", FAILED: "failed:" } as const;

export function ledgerEntry(value: string | null | undefined): LedgerEntry {
  if (value === LEDGER_VALUES.RELAYED) return { state: "relayed" };
  if (value?.startsWith(LEDGER_VALUES.IN_FLIGHT)) return { state: "in-flight" };
  if (value?.startsWith(LEDGER_VALUES.FAILED))
    return { state: "failed", outcome: value.slice(LEDGER_VALUES.FAILED.length) };
  return { state: "unknown" };
}

/**
 * A `Limit` over one of rate-limiter-flexible's limiters, which rejects with
 * its result when a key is spent and with an Error when its store fails.
 */
export function limitOver(limiter: RateLimiterAbstract): Limit {
  return {
    async take(key, points = 1) {
      try {
        return { verdict: "allowed", used: (await limiter.consume(key, points)).consumedPoints };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { verdict: "limited", used: rejection.consumedPoints };
        return { verdict: "unavailable", used: 0 };
      }
    },
    async refund(key, points = 1) {
      await limiter.reward(key, points).catch(() => undefined);
    },
    async charge(key, points = 1) {
      await limiter.penalty(key, points).catch(() => undefined);
    },
    async used(key) {
      return (await limiter.get(key).catch(() => null))?.consumedPoints ?? 0;
    },
  };
}
