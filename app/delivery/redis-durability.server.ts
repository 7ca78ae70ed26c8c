import { ReplyError, type Redis } from "ioredis";

/** /readyz and the sign-ups read Redis's settings at most this often: a flood costs one CONFIG round a second. */
const RECHECK_MS = 1_000;

/**
 * Queued mode acknowledges a sign-up once its job is in Redis (decision 016): only a Redis that never evicts keys
 * keeps that promise, and only one that persists keeps it across a restart of Redis. BullMQ merely prints its own
 * warning about the policy; this refuses start-up, readiness and new sign-ups instead.
 */
export class RedisDurability {
  private last: { at: number; refusal: Promise<string | null> } | null = null;
  private readonly warned = new Set<string>();

  constructor(private readonly redis: Redis) {}

  /**
   * Why no sign-up may be queued now, as one line naming the setting and the fix; null when Redis keeps its data,
   * or cannot say (away: the enqueue fails anyway; CONFIG refused: warned once).
   */
  refusal(now = Date.now()): Promise<string | null> {
    if (!this.last || now - this.last.at >= RECHECK_MS) {
      this.last = { at: now, refusal: this.check().then((verdict) => verdict ?? null) };
    }
    return this.last.refusal;
  }

  /** At start-up, once Redis first tells its settings: a Redis that evicts keys stops the process with its line. */
  refuseStartUnlessKept(): void {
    const decide = async () => {
      const verdict = await this.check();
      if (verdict === undefined) setTimeout(() => void decide(), RECHECK_MS).unref();
      else if (verdict) {
        console.error(verdict);
        process.exit(1);
      }
    };
    void decide();
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
        "RELAY_MODE=queued needs noeviction (CONFIG SET maxmemory-policy noeviction, and the same in redis.conf)"
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
