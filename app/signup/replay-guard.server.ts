import { createHash, randomBytes } from "node:crypto";
import { logEvent, reasonOf } from "~/server/log.server";
import type { Ledger } from "~/state/shared-state.server";

/** How often a submission in flight on another instance is looked up while waiting for its outcome. */
const POLL_MS = 50;
/** How often a relay the ledger could not record is written again while the store is away. */
const RESETTLE_MS = 100;
/** Relays awaiting their record, at most: far more than an outage's worth of sign-ups on one instance. */
const MAX_UNSETTLED = 50_000;

type OnceResult<Outcome> =
  | { kind: "done"; outcome: Outcome; duplicate: boolean }
  /** The ledger could not be asked, or the instance relaying this submission vanished: nothing was relayed here. */
  | { kind: "unavailable"; why: string };

const duplicateOf = <Outcome>(outcome: Outcome): OnceResult<Outcome> => ({ kind: "done", outcome, duplicate: true });

/** Once per key across instances (decision 007): duplicates here share the promise, elsewhere wait on the ledger. */
export class ReplayGuard<Outcome> {
  private readonly inFlight = new Map<string, Promise<OnceResult<Outcome>>>();
  /** Relays the ledger could not record, by when: written again until it takes (decision 007). */
  private readonly unsettled = new Map<string, number>();
  private resettling: NodeJS.Timeout | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly options: {
      /** At least the longest a relay can take. */
      holdMs: number;
      /** What a duplicate of a relayed submission answers. */
      relayed: Outcome;
      /** Whether an outcome is a relay, remembered `rememberMs`; any other is kept for those waiting on it. */
      isRelay: (outcome: Outcome) => boolean;
      rememberMs: number;
    },
  ) {}

  static keyOf(email: string, proof: string): string {
    return createHash("sha256").update(`${email.toLowerCase()}\n${proof}`).digest("base64url");
  }

  once(key: string, relay: () => Promise<Outcome>): Promise<OnceResult<Outcome>> {
    if (this.unsettled.has(key)) return Promise.resolve(duplicateOf(this.options.relayed));
    const shared = this.inFlight.get(key);
    if (shared) return shared.then((result) => (result.kind === "done" ? duplicateOf(result.outcome) : result));
    const run = this.claimAndRelay(key, relay).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, run);
    return run;
  }

  private async claimAndRelay(key: string, relay: () => Promise<Outcome>): Promise<OnceResult<Outcome>> {
    const holder = randomBytes(9).toString("base64url");
    let claim: Awaited<ReturnType<Ledger["claim"]>>;
    try {
      claim = await this.ledger.claim(key, this.options.holdMs, holder);
    } catch (error) {
      // A timed-out claim may still apply once Redis answers: undo it, or a retry would wait on a relay never made.
      this.ledger.release(key, holder).catch(() => undefined);
      return { kind: "unavailable", why: `ledger: ${reasonOf(error)}` };
    }
    if (claim === "relayed") return duplicateOf(this.options.relayed);
    if (claim === "in-flight") return this.outcomeOfAnother(key);

    const outcome = await relay();
    const ok = this.options.isRelay(outcome);
    try {
      await this.ledger.settle(key, ok ? { ok } : { ok, outcome: JSON.stringify(outcome) }, this.options.rememberMs);
    } catch (error) {
      // The relay happened. A failure needs no record (its claim expires and a retry relays afresh);
      // a success must be recorded, or it could be relayed again.
      logEvent("ledger-settle-failed", { ok, reason: reasonOf(error) });
      if (ok) this.rememberUnsettled(key);
    }
    return { kind: "done", outcome, duplicate: false };
  }

  private rememberUnsettled(key: string): void {
    if (this.unsettled.size >= MAX_UNSETTLED) this.unsettled.delete(this.unsettled.keys().next().value!);
    this.unsettled.set(key, Date.now());
    this.resettling ??= setTimeout(() => void this.resettle(), RESETTLE_MS).unref();
  }

  /** Oldest first, until the store takes them or they are past remembering. */
  private async resettle(): Promise<void> {
    for (const [key, relayedAt] of this.unsettled) {
      const left = this.options.rememberMs - (Date.now() - relayedAt);
      try {
        if (left > 0) await this.ledger.settle(key, { ok: true }, left);
        this.unsettled.delete(key);
      } catch {
        break; // still away: try again later
      }
    }
    if (this.unsettled.size > 0) {
      this.resettling = setTimeout(() => void this.resettle(), RESETTLE_MS).unref();
    } else {
      logEvent("ledger-resettled", {});
      this.resettling = undefined;
    }
  }

  /** Waits, at most as long as a claim holds, for the instance relaying `key` to settle it. */
  private async outcomeOfAnother(key: string): Promise<OnceResult<Outcome>> {
    const deadline = Date.now() + this.options.holdMs;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      let entry: Awaited<ReturnType<Ledger["read"]>>;
      try {
        entry = await this.ledger.read(key);
      } catch (error) {
        return { kind: "unavailable", why: `ledger: ${reasonOf(error)}` };
      }
      if (entry.state === "relayed") return duplicateOf(this.options.relayed);
      if (entry.state === "failed") return duplicateOf(JSON.parse(entry.outcome) as Outcome);
      if (entry.state === "unknown") return { kind: "unavailable", why: "its claim was given up or expired unsettled" };
    }
    return { kind: "unavailable", why: "waited too long for another instance" };
  }
}
