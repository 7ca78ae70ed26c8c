import { EventEmitter, once } from "node:events";
import type { Limit, SharedState } from "~/state/shared-state.server";

/**
 * How many failed posts one address (an IPv4 address, an IPv6 /64) may make
 * in FAILURE_WINDOW_SECONDS before the posts that would cost a verification
 * are refused. Only failures count: a carrier-NAT address shared by hundreds
 * of people signs up freely, and a flooding one stops costing siteverify calls.
 */
export const FAILURES_PER_ADDRESS = 20;
export const FAILURE_WINDOW_SECONDS = 5 * 60;

/** What a verification paid for by the allowance concluded. */
export type Verified<T> = { failed: boolean; result: T };

/**
 * The per-address allowance of failures, shared by every instance through the
 * state. A verification reserves a point before it starts and gives it back
 * unless it failed, so concurrent forgeries from one address cannot exceed the
 * allowance between them; posts that fail without a verification (junk, a bad
 * address) are charged afterwards. A genuine burst from one address waits for
 * its own reservations on this instance to settle rather than being refused.
 */
export class FailureAllowance {
  private readonly failures: Limit;
  /** Reservations in flight on this instance, per address. */
  private readonly reserved = new Map<string, number>();
  /** Emits an address when one of its reservations settles. */
  private readonly settled = new EventEmitter().setMaxListeners(0);

  constructor(state: SharedState) {
    this.failures = state.limit({
      name: "failures",
      points: FAILURES_PER_ADDRESS,
      durationSeconds: FAILURE_WINDOW_SECONDS,
      // While Redis is away each instance keeps counting on its own.
      whenAway: "local",
    });
  }

  /** A failure that needed no verification. */
  charge(address: string): Promise<void> {
    return this.failures.charge(address);
  }

  /**
   * Runs `verify` on the address's allowance, telling it how much of the
   * allowance the address has used (its rank among waiting verifications), or
   * answers "exhausted" when failures have spent it. Gives up waiting for
   * this instance's own reservations at `deadline`.
   */
  async verify<T>(
    address: string,
    deadline: number,
    verify: (used: number) => Promise<Verified<T>>,
  ): Promise<T | "exhausted"> {
    for (;;) {
      const { verdict, used } = await this.failures.take(address);
      // Unavailable: the store could not count (it fails open, like the limits it backs up).
      if (verdict !== "limited") return this.run(address, used, verify, verdict === "allowed");
      // A refused take still counted its point.
      await this.failures.refund(address);
      // Spent, perhaps only by reservations in flight here: wait for one of them to settle.
      if (!this.reserved.get(address) || !(await this.nextSettled(address, deadline))) return "exhausted";
    }
  }

  private async run<T>(
    address: string,
    used: number,
    verify: (used: number) => Promise<Verified<T>>,
    reservedAPoint: boolean,
  ): Promise<T> {
    this.reserved.set(address, (this.reserved.get(address) ?? 0) + 1);
    let failed = false;
    try {
      const verified = await verify(used);
      failed = verified.failed;
      return verified.result;
    } finally {
      if (reservedAPoint && !failed) await this.failures.refund(address);
      const left = (this.reserved.get(address) ?? 1) - 1;
      if (left > 0) this.reserved.set(address, left);
      else this.reserved.delete(address);
      this.settled.emit(address);
    }
  }

  /** Whether a reservation of `address` settled before `deadline`. */
  private async nextSettled(address: string, deadline: number): Promise<boolean> {
    const signal = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
    try {
      await once(this.settled, address, { signal });
      return true;
    } catch {
      return false;
    }
  }
}
