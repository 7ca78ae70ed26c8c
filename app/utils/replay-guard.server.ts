import { createHash } from "node:crypto";
import { ExpiringSet } from "./expiring-set.server";

const ONE_HOUR_MS = 60 * 60 * 1000;

/**
 * Makes relaying idempotent: a submission (e-mail + the proof that came with
 * it) that was relayed once answers success again without a second relay,
 * whether it arrives after the first finished (refresh, retry) or while it is
 * still in flight (double click). Only a hash of the pair is kept.
 */
export class ReplayGuard<Outcome extends { ok: boolean }> {
  private readonly relayed: ExpiringSet;
  private readonly inFlight = new Map<string, Promise<Outcome>>();

  constructor(ttlMs = ONE_HOUR_MS, maxEntries = 200_000) {
    this.relayed = new ExpiringSet(ttlMs, maxEntries);
  }

  static keyOf(email: string, proof: string): string {
    return createHash("sha256").update(`${email.toLowerCase()}\n${proof}`).digest("base64url");
  }

  /** `true` when this key was already relayed successfully. */
  wasRelayed(key: string): boolean {
    return this.relayed.has(key);
  }

  /** Runs `relay` once per key at a time; concurrent duplicates share its outcome. */
  async once(key: string, relay: () => Promise<Outcome>): Promise<{ outcome: Outcome; duplicate: boolean }> {
    const running = this.inFlight.get(key);
    if (running) return { outcome: await running, duplicate: true };
    const attempt = relay();
    this.inFlight.set(key, attempt);
    try {
      const outcome = await attempt;
      if (outcome.ok) this.relayed.add(key);
      return { outcome, duplicate: false };
    } finally {
      this.inFlight.delete(key);
    }
  }
}
