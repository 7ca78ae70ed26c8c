import { lookup } from "node:dns/promises";
import { Redis, ReplyError, type RedisOptions } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { logEvent, reasonOf } from "~/server/log.server";
import { ConfigError } from "~/server/settings.server";
import { memoryLimiter } from "./memory-state.server";
import {
  FAILED_TTL_MS,
  LEDGER_VALUES,
  limitOf,
  ledgerEntry,
  type Ledger,
  type Limit,
  type LimitSpec,
  type RelayTimes,
  type SharedState,
} from "./shared-state.server";

/** One atomic step, so two instances never both relay. */
const CLAIM_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, string.len(ARGV[3])) ~= ARGV[3] then return current end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
return 'claimed'`;

const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

type LedgerClient = Redis & {
  claimSubmission(key: string, holdMs: number, holder: string, failedPrefix: string): Promise<string>;
  releaseSubmission(key: string, holder: string): Promise<number>;
};

/** The longest a client waits between attempts to reconnect to a Redis that went away. */
const MAX_RECONNECT_DELAY_MS = 2_000;
/** A command Redis has not answered in this long is refused: Redis is away (decision 007). */
export const REDIS_TIMEOUT_MS = 1_000;
/** Readiness writes a key of its own: it outlives a few probes, never the deployment. */
const READINESS_KEY_TTL_MS = 10_000;

/**
 * A client and every duplicate of it, theirs too (the queue's, the workers', BullMQ's own): the app's connections,
 * which follow a failover together.
 */
class RedisWithDuplicates extends Redis {
  private members = new Set<Redis>([this]);

  override duplicate(override?: Partial<RedisOptions>): Redis {
    return this.joined(new RedisWithDuplicates({ ...this.options, ...override }));
  }

  /** `copy`, made one of this client's connections. */
  protected joined<Copy extends RedisWithDuplicates>(copy: Copy): Copy {
    copy.members = this.members;
    this.members.add(copy);
    // BullMQ ends a worker's blocking connection and connects it again: it stays one of them.
    copy.on("connect", () => this.members.add(copy));
    copy.on("end", () => this.members.delete(copy));
    return copy;
  }

  /**
   * Drops every connection at once, each then reconnecting through the Sentinels: not ioredis's disconnect, whose
   * polite close waits (disconnectTimeout) for an answer a hung server never sends.
   */
  reconnectAll(): void {
    for (const member of this.members) member.stream?.destroy();
  }
}

/**
 * ioredis's `commandTimeout` fires on this process's clock: after a busy stretch of the event loop its timer runs
 * before the loop reads the answer already waiting on the socket, and a loaded instance would refuse sign-ups that
 * Redis had answered in time. This timeout looks again once the loop has read what arrived (an immediate runs after the
 * I/O phase), so only a command Redis has not answered is refused, and `onUnanswered` is told.
 */
class RedisTimedByItsAnswers extends RedisWithDuplicates {
  onUnanswered: () => void = () => undefined;

  override sendCommand(...args: Parameters<Redis["sendCommand"]>): unknown {
    const [command] = args;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (command.isResolved) return;
          command.reject(new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`));
          this.onUnanswered();
        }),
      REDIS_TIMEOUT_MS,
    );
    const settled = () => clearTimeout(timer);
    command.promise.then(settled, settled);
    return super.sendCommand(...args);
  }

  /** A connection of its own, timed as this one is, whose unanswered commands tell this one. */
  timedDuplicate(): Redis {
    const copy = this.joined(new RedisTimedByItsAnswers(this.options));
    copy.onUnanswered = () => this.onUnanswered();
    copy.on("error", () => undefined); // this client logs the outages
    return copy;
  }
}

/** A Sentinel group (REDIS_SENTINELS): where the primary is now, asked again on every reconnection. */
type SentinelGroup = {
  sentinels: Array<{ host: string; port: number }>;
  name: string;
  sentinelUsername?: string;
  sentinelPassword?: string;
};

/** A Sentinel's answer: where the primary is, or why no Sentinel named it (one line naming them and the name). */
type SentinelAnswer =
  | { primary: { host: string; port: number } }
  /** `misconfigured`: every Sentinel answered, and none knows the name or takes the credentials. */
  | { primary: null; trouble: string; misconfigured: boolean };

/** Asks each Sentinel in turn where the primary is, until one names it. */
async function askSentinels(group: SentinelGroup): Promise<SentinelAnswer> {
  const troubles: string[] = [];
  let answered = 0;
  for (const { host, port } of group.sentinels) {
    const sentinel = new Redis({
      host,
      port,
      username: group.sentinelUsername,
      password: group.sentinelPassword,
      lazyConnect: true,
      connectTimeout: REDIS_TIMEOUT_MS,
      commandTimeout: REDIS_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    let unreachable = "";
    sentinel.on("error", (error: Error) => (unreachable = error.message));
    try {
      const named = (await sentinel.call("SENTINEL", "get-master-addr-by-name", group.name)) as string[] | null;
      if (named) return { primary: { host: named[0]!, port: Number(named[1]) } };
      answered++;
      troubles.push(`${host}:${port} knows no such primary`);
    } catch (error) {
      const refused = error instanceof ReplyError;
      if (refused) answered++;
      troubles.push(`${host}:${port}: ${refused ? reasonOf(error) : unreachable || reasonOf(error)}`);
    } finally {
      sentinel.disconnect();
    }
  }
  return {
    primary: null,
    misconfigured: answered === group.sentinels.length,
    trouble: `no Sentinel of REDIS_SENTINELS names a primary REDIS_SENTINEL_NAME=${group.name} (${troubles.join("; ")})`,
  };
}

/**
 * Commands never queue while Redis is away and each is bounded by REDIS_TIMEOUT_MS: an outage costs a request
 * at most that, never a hang. `namespace` prefixes every key, so several sites can share one Redis. With
 * `sentinel`, every client (this one and its duplicates: the queue's, the workers') asks the Sentinels for the
 * primary on each reconnection: a lost primary closes its connections, a demoted one answers writes READONLY,
 * and both make the client reconnect; a hung one is left when the Sentinels name another (followOnSilence). Not
 * ioredis's failoverDetector: its disconnect, arriving while a client is already reconnecting, ends that client
 * for good (ioredis 5.11, seen losing an instance's every connection).
 */
export function redisState({
  url,
  namespace,
  sentinel,
}: {
  url: string;
  namespace: string;
  sentinel?: SentinelGroup;
}): SharedState & {
  client: Redis;
  /** A connection apart from `client`'s commands, timed and following failovers as it does. */
  connectionOfItsOwn: () => Redis;
  /** Settles once Redis first answers; a ConfigError when it refuses REDIS_URL's database. */
  database: Promise<void>;
} {
  const client = new RedisTimedByItsAnswers(url, {
    ...(sentinel && {
      ...sentinel,
      reconnectOnError: (error) => error.message.startsWith("READONLY"),
      // Without it ioredis waits forever on a Sentinel that hangs, and never asks the next one.
      sentinelCommandTimeout: REDIS_TIMEOUT_MS,
    }),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2 * REDIS_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(100 * attempt, MAX_RECONNECT_DELAY_MS),
    // A Redis that answers "LOADING" is not ready yet: commands are refused until it is.
    enableReadyCheck: true,
  }) as RedisTimedByItsAnswers & LedgerClient;
  client.defineCommand("claimSubmission", { numberOfKeys: 1, lua: CLAIM_SCRIPT });
  client.defineCommand("releaseSubmission", { numberOfKeys: 1, lua: RELEASE_SCRIPT });
  const leaving = reportAvailability(client);
  if (sentinel) client.onUnanswered = followOnSilence(client, sentinel, leaving);

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
    async settle(submission, result, relayedTtlMs) {
      if (result.ok) await client.set(key("ledger", submission), LEDGER_VALUES.RELAYED, "PX", relayedTtlMs);
      else await client.set(key("ledger", submission), LEDGER_VALUES.FAILED + result.outcome, "PX", FAILED_TTL_MS);
    },
  };

  const relayTimes: RelayTimes = {
    async record(durationMs, keep) {
      await client
        .multi()
        .lpush(key("relay-times"), durationMs)
        .ltrim(key("relay-times"), 0, keep - 1)
        .exec();
    },
    recent: async () => (await client.lrange(key("relay-times"), 0, -1)).map(Number),
  };

  const limiter = (spec: LimitSpec) =>
    new RateLimiterRedis({
      storeClient: client,
      keyPrefix: key("limit", spec.name),
      points: spec.points,
      duration: spec.durationSeconds,
      rejectIfRedisNotReady: true,
      insuranceLimiter: spec.whenAway === "local" ? memoryLimiter(spec) : undefined,
    });
  const limit = (spec: LimitSpec): Limit => limitOf(spec, limiter);

  // A write, not a PING: a read-only replica, or a Redis out of memory under noeviction, answers every read and
  // refuses every sign-up.
  const unready = async () => {
    try {
      await client.set(key("readiness"), "written", "PX", READINESS_KEY_TTL_MS);
      return null;
    } catch (error) {
      if (!(error instanceof ReplyError))
        return sentinel ? unansweredVia(sentinel) : "Redis (REDIS_URL) does not answer";
      return `Redis (REDIS_URL) refuses writes: ${(error as Error).message}`;
    }
  };

  // ioredis sends REDIS_URL's SELECT on connecting, and carries on in database 0 when Redis refuses it.
  const database = answered(client, sentinel).then(async () => {
    const index = client.options.db ?? 0;
    await client.select(index).catch((error: unknown) => {
      if (!(error instanceof ReplyError)) return; // not an answer: readiness reports it
      throw new ConfigError(
        `Invalid configuration: REDIS_URL names database ${index}, which Redis refuses (${(error as Error).message})`,
      );
    });
  });

  const connectionOfItsOwn = () => client.timedDuplicate();
  return { epoch: "", limit, ledger, relayTimes, unready, client, connectionOfItsOwn, database };
}

/** Why Redis does not answer, from what the Sentinels say. */
async function unansweredVia(sentinel: SentinelGroup): Promise<string> {
  const answer = await askSentinels(sentinel);
  if (!answer.primary) return `Redis does not answer: ${answer.trouble}`;
  return `Redis (the primary ${answer.primary.host}:${answer.primary.port} named by REDIS_SENTINELS) does not answer`;
}

/**
 * Settles once Redis first answers; a ConfigError when it refuses REDIS_URL's credentials, or when every Sentinel
 * answers and none names the primary (a wrong REDIS_SENTINEL_NAME, or Sentinel credentials). Sentinels that do not
 * answer are no configuration error (they may be starting too): one log line names them.
 */
function answered(client: Redis, sentinel?: SentinelGroup): Promise<void> {
  let asking = false;
  let logged = false;
  return new Promise((resolve, reject) => {
    // ioredis's connector tries the Sentinels again and again, each round ending in an 'error'.
    const askTheSentinels = () => {
      if (!sentinel || asking) return;
      asking = true;
      void askSentinels(sentinel).then((answer) => {
        asking = false;
        if (answer.primary || client.status === "ready") return;
        if (answer.misconfigured) return reject(new ConfigError(`Invalid configuration: ${answer.trouble}`));
        if (!logged) logEvent("redis", { state: "unavailable", reason: answer.trouble });
        logged = true;
      });
    };
    client.on("error", askTheSentinels);
    // Redis closes the connection on refusing them and ioredis tries again and again: no "ready" would come.
    const refused = (error: Error) => {
      if (!(error instanceof ReplyError) || !/^(NOAUTH|WRONGPASS)\b/.test(error.message)) return;
      client.off("error", refused);
      reject(
        new ConfigError(
          `Invalid configuration: Redis refuses REDIS_URL's credentials (${error.message}); ` +
            "put the user and password Redis expects in it: redis://user:password@host:port",
        ),
      );
    };
    client.on("error", refused);
    client.once("ready", () => {
      client.off("error", refused);
      client.off("error", askTheSentinels);
      resolve();
    });
  });
}

/**
 * A primary that hangs (a frozen process, a network that drops packets) keeps its connections open: ioredis would ask
 * it until TCP gives up, minutes later, while the Sentinels promote a replica within seconds. On a command it left
 * unanswered the Sentinels are asked, one question at a time, and when they name another primary every connection
 * is made again to it.
 */
function followOnSilence(
  client: RedisTimedByItsAnswers,
  group: SentinelGroup,
  leaving: (reason: string) => void,
): () => void {
  let asking = false;
  return () => {
    if (asking || client.status !== "ready") return;
    asking = true;
    void askSentinels(group)
      .then(async (answer) => {
        if (!answer.primary || client.status !== "ready" || (await connectedTo(client, answer.primary))) return;
        leaving(`did not answer; the Sentinels name ${answer.primary.host}:${answer.primary.port} as primary`);
        client.reconnectAll();
      })
      .finally(() => (asking = false));
  };
}

/** Whether `client` is connected to `primary`, which a Sentinel may name by its host name (compose's do). */
async function connectedTo(client: Redis, primary: { host: string; port: number }): Promise<boolean> {
  const { remoteAddress, remotePort } = client.stream;
  if (remotePort !== primary.port) return false;
  const addresses = await lookup(primary.host, { all: true }).catch(() => null);
  // A name that does not resolve is no primary to reconnect to.
  return !addresses || addresses.some(({ address }) => address === remoteAddress);
}

/**
 * One log line when Redis goes away and one when it is back, naming the primary: a failover shows as the line
 * whose primary differs from the one before. An unheard 'error' event would end the process.
 */
function reportAvailability(client: Redis): (reason: string) => void {
  let away = false;
  let lastReason = "";
  let lastPrimary: string | undefined;
  client.on("error", (error: Error) => (lastReason = error.message));
  client.on("close", () => {
    if (away) return;
    away = true;
    logEvent("redis", { state: "unavailable", reason: lastReason || "connection closed" });
  });
  client.on("ready", () => {
    const primary = `${client.stream.remoteAddress}:${client.stream.remotePort}`;
    const failedOver = lastPrimary !== undefined && primary !== lastPrimary;
    logEvent("redis", { state: "ready", primary, ...(failedOver && { previous: lastPrimary }) });
    away = false;
    lastReason = "";
    lastPrimary = primary;
  });
  return (reason) => (lastReason = reason);
}
