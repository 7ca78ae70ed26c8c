import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { logEvent } from "../log.server";
import { memoryLimiter } from "./memory-state.server";
import {
  FAILED_TTL_MS,
  LEDGER_VALUES,
  RELAYED_TTL_MS,
  consume,
  ledgerEntry,
  type Ledger,
  type Limit,
  type LimitSpec,
  type SharedState,
} from "./shared-state.server";

/** Claims a submission unless it was relayed or is in flight: one atomic step, so two instances never both relay. */
const CLAIM_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, string.len(ARGV[3])) ~= ARGV[3] then return current end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
return 'claimed'`;

/** Deletes a claim only while it is still the given holder's. */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

type LedgerClient = Redis & {
  claimSubmission(key: string, holdMs: number, holder: string, failedPrefix: string): Promise<string>;
  releaseSubmission(key: string, holder: string): Promise<number>;
};

/** The longest a client waits between attempts to reconnect to a Redis that went away. */
const MAX_RECONNECT_DELAY_MS = 2_000;
/**
 * How long a starting instance that finds no secret in Redis leaves running
 * instances to offer theirs (they do on reconnecting) before it offers its own.
 */
const SECRET_OFFER_GRACE_MS = 2 * MAX_RECONNECT_DELAY_MS;

export type RedisOptions = {
  url: string;
  /** The longest any one command may take before the caller treats Redis as away. */
  timeoutMs: number;
  /** Prefix of every key, so several sites can share one Redis. */
  namespace: string;
};

/**
 * Shared state in Redis. Commands never queue while Redis is away and each is
 * bounded by `timeoutMs`, so an outage costs a request milliseconds, never a
 * hang; the client reconnects on its own, and outages are logged once each.
 */
export function redisState({ url, timeoutMs, namespace }: RedisOptions): SharedState & { client: Redis } {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(1_000, timeoutMs * 10),
    retryStrategy: (attempt) => Math.min(100 * attempt, MAX_RECONNECT_DELAY_MS),
    // A Redis that answers "LOADING" is not ready yet; commands wait for the ready state.
    enableReadyCheck: true,
  }) as LedgerClient;
  client.defineCommand("claimSubmission", { numberOfKeys: 1, lua: CLAIM_SCRIPT });
  client.defineCommand("releaseSubmission", { numberOfKeys: 1, lua: RELEASE_SCRIPT });
  reportAvailability(client);

  const key = (...parts: string[]) => [namespace, ...parts].join(":");

  const ledger: Ledger = {
    async claim(submission, holdMs, holder) {
      const value = `${LEDGER_VALUES.IN_FLIGHT}:${holder}`;
      const current = await client.claimSubmission(key("ledger", submission), holdMs, value, LEDGER_VALUES.FAILED);
      if (current === "claimed") return "claimed";
      return ledgerEntry(current).state === "relayed" ? "relayed" : "in-flight";
    },
    async release(submission, holder) {
      await client.releaseSubmission(key("ledger", submission), `${LEDGER_VALUES.IN_FLIGHT}:${holder}`);
    },
    async read(submission) {
      return ledgerEntry(await client.get(key("ledger", submission)));
    },
    async settle(submission, result) {
      if (result.ok) await client.set(key("ledger", submission), LEDGER_VALUES.RELAYED, "PX", RELAYED_TTL_MS);
      else await client.set(key("ledger", submission), LEDGER_VALUES.FAILED + result.outcome, "PX", FAILED_TTL_MS);
    },
  };

  function limit(spec: LimitSpec): Limit {
    const limiter = new RateLimiterRedis({
      storeClient: client,
      keyPrefix: key("limit", spec.name),
      points: spec.points,
      duration: spec.durationSeconds,
      rejectIfRedisNotReady: true,
      insuranceLimiter: spec.whenAway === "local" ? memoryLimiter(spec) : undefined,
    });
    return { take: (subject) => consume(limiter, subject) };
  }

  async function ready(): Promise<boolean> {
    try {
      return (await client.ping()) === "PONG";
    } catch {
      return false;
    }
  }

  return { kind: "redis", limit, ledger, ready, client };
}

/** The secret instances agreed on, and whether Redis still holds this instance's. */
export type AgreedSecret = { secret: string; agrees: () => boolean };

/**
 * Instances without SIGNUP_SECRET agree on one through Redis: the first to
 * start stores its candidate, the others read it. Waits for Redis up to
 * `waitMs`, since a page signed with a secret of this instance alone would
 * fail on every other one.
 *
 * A Redis restarted without persistence comes back empty: running instances
 * offer theirs again as they reconnect, and an instance starting meanwhile
 * waits for them before offering its own. Should Redis still end up holding
 * another secret, this instance says so (`agrees`, readiness) rather than
 * signing pages that the others refuse.
 */
export async function agreedSecret(client: Redis, namespace: string, waitMs: number): Promise<AgreedSecret> {
  await untilReady(client, waitMs);
  const name = `${namespace}:signup-secret`;
  if ((await client.get(name)) === null) {
    await new Promise((resolve) => setTimeout(resolve, SECRET_OFFER_GRACE_MS));
    await client.set(name, randomBytes(32).toString("base64url"), "NX");
  }
  const secret = await client.get(name);
  if (!secret || secret.length < 32) throw new Error(`${name} in Redis holds no usable secret`);
  let agrees = true;
  client.on("ready", () => {
    void (async () => {
      await client.set(name, secret, "NX");
      const stored = await client.get(name);
      if (agrees && stored !== secret) logEvent("signup-secret-disagrees", { key: name });
      agrees = stored === secret;
    })().catch(() => undefined);
  });
  return { secret, agrees: () => agrees };
}

function untilReady(client: Redis, waitMs: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off("ready", onReady);
      reject(new Error(`Redis was not ready within ${waitMs / 1000} s`));
    }, waitMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once("ready", onReady);
  });
}

/** One log line when Redis goes away and one when it is back; an unheard 'error' event would end the process. */
function reportAvailability(client: Redis): void {
  let away = false;
  let lastReason = "";
  client.on("error", (error: Error) => {
    lastReason = error.message;
  });
  client.on("close", () => {
    if (away) return;
    away = true;
    logEvent("redis", { state: "unavailable", reason: lastReason || "connection closed" });
  });
  client.on("ready", () => {
    away = false;
    lastReason = "";
    logEvent("redis", { state: "ready" });
  });
}
