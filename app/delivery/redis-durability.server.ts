import { ReplyError, type Redis } from "ioredis";
import { logEvent } from "~/server/log.server";

/** /readyz and the sign-ups read Redis's settings at most this often, so a flood costs few CONFIG rounds (docs/signup.md, "Limits"). */
const RECHECK_MS = 1_000;
/** CONFIG GET is rare and not on a visitor's path: it may wait longer than the shared state's commands. */
const CHECK_TIMEOUT_MS = 2_000;
const NOT_READ_YET = "Redis's maxmemory-policy has not been read yet";
/** How to make Redis keep every key, said wherever an evicting policy is met. */
const NOEVICTION_FIX = "CONFIG SET maxmemory-policy noeviction, and the same in redis.conf";

/**
 * Queued mode acknowledges a sign-up once its job is in Redis (decision 016): only a Redis that never evicts keys
 * keeps that promise, and only one that persists keeps it across a restart of Redis. BullMQ merely prints its own
 * warning about the policy; this refuses start-up, readiness and new sign-ups instead.
 */
/** How long a replica may go without acknowledging the primary and still count as online. */
const REPLICA_LAG_LIMIT_SECONDS = 3;

export class RedisDurability {
  private readonly redis: Redis;
  private last: { at: number; refusal: Promise<string | null> } | null = null;
  /** The last verdict Redis gave: a check it did not answer (away, slow) changes nothing. */
  private known: string | null = NOT_READ_YET;
  private decided = false;
  private readonly warned = new Set<string>();
  private replicasShort: boolean | null = null;

  /** `minReplicas` (REDIS_MIN_REPLICAS): replicas that must be online for a sign-up to be acknowledged. */
  constructor(
    shared: Redis,
    private readonly minReplicas = 0,
  ) {
    this.redis = shared.duplicate({ commandTimeout: CHECK_TIMEOUT_MS });
    this.redis.on("error", () => undefined); // the shared state's client logs the outages
    // Read at once whenever Redis (again) answers: a check made before the connection is ready has no answer, and
    // kept for RECHECK_MS it would hold readiness back that long.
    this.redis.on("ready", () => {
      this.last = null;
      void this.refusal();
    });
  }

  /**
   * Why no sign-up may be queued now, as one line naming the setting and the fix; null when Redis keeps its data,
   * or refuses CONFIG (warned once). Until Redis first tells its settings, nothing is acknowledged.
   */
  refusal(now = Date.now()): Promise<string | null> {
    if (!this.last || now - this.last.at >= RECHECK_MS) this.last = { at: now, refusal: this.recheck() };
    return this.last.refusal;
  }

  /** Reads the settings until Redis first tells them: a Redis that evicts keys then stops start-up with its line. */
  refuseStartUnlessKept(): void {
    void this.refusal().then(() => {
      if (!this.decided) setTimeout(() => this.refuseStartUnlessKept(), RECHECK_MS).unref();
    });
  }

  private async recheck(): Promise<string | null> {
    const [verdict, shortage] = await Promise.all([this.check(), this.replicaShortage()]);
    if (verdict === undefined) return this.known ?? shortage;
    // After start-up the verdict changes only when Redis does, a failover to an evicting Redis among others.
    if (this.decided && verdict !== this.known)
      logEvent("redis-eviction", verdict ? { state: "refused", reason: verdict } : { state: "kept" });
    this.known = verdict;
    if (!this.decided) {
      this.decided = true;
      if (verdict) {
        console.error(verdict);
        process.exit(1);
      }
    }
    return verdict ?? shortage;
  }

  /**
   * Fewer replicas online than `minReplicas`: a sign-up acknowledged now would be held by too few machines. Refused
   * before it is queued, so visitors are not each made to wait for a WAIT that cannot succeed. One log line when
   * the count falls short and one when it is back, not one per sign-up.
   */
  private async replicaShortage(): Promise<string | null> {
    if (!this.minReplicas) return null;
    const info = await this.redis.info("replication").catch(() => null);
    if (info === null) return null; // no answer: readiness names the outage
    const online = replicasOnline(info);
    const short = online < this.minReplicas;
    if (short !== this.replicasShort) {
      if (short || this.replicasShort) logEvent("redis-replicas", { online, required: this.minReplicas });
      this.replicasShort = short;
    }
    if (!short) return null;
    return (
      `Redis has ${online} replica(s) online and REDIS_MIN_REPLICAS asks for ${this.minReplicas}: ` +
      "no sign-up is acknowledged until enough replicas are back"
    );
  }

  /** The refusal, null, or undefined when Redis did not answer (away, or slow). */
  private async check(): Promise<string | null | undefined> {
    let settings: string[];
    try {
      settings = await Promise.all(
        ["maxmemory-policy", "appendonly", "save"].map(async (name) => {
          const [, value] = (await this.redis.config("GET", name)) as [string, string];
          return value;
        }),
      );
    } catch (error) {
      if (!(error instanceof ReplyError)) return undefined;
      this.warnOnce(
        "Redis refuses CONFIG GET (as some managed services do): check in its settings that maxmemory-policy is " +
          "noeviction and that it persists its data (AOF or RDB), or queued sign-ups can be lost",
      );
      return null;
    }
    const [policy, appendonly, save] = settings;
    if (policy !== "noeviction") {
      return (
        `Invalid configuration: Redis's maxmemory-policy is ${policy}, so it may evict queued sign-ups; ` +
        `RELAY_MODE=queued needs noeviction (${NOEVICTION_FIX})`
      );
    }
    if (appendonly !== "yes" && !save) {
      this.warnOnce(
        'Redis persists nothing (appendonly no, save ""): a restart of Redis loses every undelivered sign-up; ' +
          "turn on appendonly yes (as compose.yaml does) or RDB snapshots",
      );
    }
    return null;
  }

  private warnOnce(warning: string): void {
    if (this.warned.has(warning)) return;
    this.warned.add(warning);
    console.warn(`[config] warning: ${warning}`);
  }
}

/**
 * Direct and sink modes keep nothing in Redis that a sign-up needs to arrive, only what stops it arriving twice: a
 * Redis that evicts keys is warned about once (queued mode refuses it: RedisDurability).
 * A Redis that does not answer, or refuses CONFIG, gets no warning.
 */
export async function warnIfRedisEvicts(client: Redis): Promise<void> {
  const [, policy] = (await client.config("GET", "maxmemory-policy").catch(() => [])) as string[];
  if (!policy || policy === "noeviction") return;
  console.warn(
    `[config] warning: Redis's maxmemory-policy is ${policy}, so it may evict the record of what was relayed and ` +
      `the limits: a retry may then be relayed twice, an address again within the day; set noeviction (${NOEVICTION_FIX})`,
  );
}

/**
 * Replicas listed `state=online` that acknowledged the primary within REPLICA_LAG_LIMIT_SECONDS: a replica sends its
 * acknowledgement every second, and one that stopped (frozen, cut off) stays `online` until Redis's repl-timeout
 * (60 s) while it confirms nothing.
 */
export function replicasOnline(infoReplication: string): number {
  return [...infoReplication.matchAll(/^slave\d+:.*\bstate=online\b.*\blag=(\d+)/gm)].filter(
    ([, lag]) => Number(lag) <= REPLICA_LAG_LIMIT_SECONDS,
  ).length;
}
