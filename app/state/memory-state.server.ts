import { randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
import { RateLimiterMemory } from "rate-limiter-flexible";
import {
  FAILED_TTL_MS,
  LEDGER_VALUES,
  limitOf,
  ledgerEntry,
  type Ledger,
  type LimitSpec,
  type RelayTimes,
  type SharedState,
} from "./shared-state.server";

/** The embedded default: everything in this process's memory, for a single instance. */
export function memoryState(): SharedState {
  const entries = new LRUCache<string, string>({ max: 200_000 });
  const ledger: Ledger = {
    async claim(key, holdMs, holder) {
      const current = ledgerEntry(entries.get(key)).state;
      if (current === "relayed" || current === "in-flight") return current;
      entries.set(key, `${LEDGER_VALUES.IN_FLIGHT}:${holder}`, { ttl: holdMs });
      return "claimed";
    },
    async release(key, holder) {
      if (entries.get(key) === `${LEDGER_VALUES.IN_FLIGHT}:${holder}`) entries.delete(key);
    },
    async read(key) {
      return ledgerEntry(entries.get(key));
    },
    async settle(key, result, relayedTtlMs) {
      if (result.ok) entries.set(key, LEDGER_VALUES.RELAYED, { ttl: relayedTtlMs });
      else entries.set(key, LEDGER_VALUES.FAILED + result.outcome, { ttl: FAILED_TTL_MS });
    },
  };
  const times: number[] = [];
  const relayTimes: RelayTimes = {
    async record(durationMs, keep) {
      times.unshift(durationMs);
      times.length = Math.min(times.length, keep);
    },
    recent: async () => [...times],
  };
  const limit = (spec: LimitSpec) => limitOf(spec, memoryLimiter);
  return { epoch: randomBytes(3).toString("base64url"), limit, ledger, relayTimes, unready: async () => null };
}

/** `spec` counted in this process: the memory store's limits, and the Redis store's while Redis is away. */
export function memoryLimiter(spec: LimitSpec): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix: spec.name, points: spec.points, duration: spec.durationSeconds });
}
