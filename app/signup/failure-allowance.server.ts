import { EventEmitter, once } from "node:events";
import type { Limit, SharedState } from "~/state/shared-state.server";

/**
 * How many failed verifications (forged or spent tokens, wrong answers) one
 * address (an IPv4 address, an IPv6 /64) may make in FAILURE_WINDOW_SECONDS
 * before the posts that would cost a verification are refused. Only failures
 * count: a carrier-NAT address shared by hundreds of people signs up freely,
 * and a flooding one stops costing siteverify calls.
 */
export const FAILURES_PER_ADDRESS = 20;
export const FAILURE_WINDOW_SECONDS = 5 * 60;
/**
 * Junk (a post no page of ours sent, a bad address, no proof) costs no
 * verification, so it weighs a fifth of a failure: one bad device behind a
 * shared address does not lock its neighbours out after 20 posts.
 */
export const JUNK_PER_FAILURE = 5;
export const JUNK_PER_ADDRESS = FAILURES_PER_ADDRESS * JUNK_PER_FAILURE;

/** In points: a failed verification, and what a verification holds while in flight. */
const FAILURE = JUNK_PER_FAILURE;
/** In points: junk, and a verification siteverify could not answer (so a slow or failing siteverify is still bounded). */
const CHEAP_FAILURE = 1;
/** The allowance in points: FAILURES_PER_ADDRESS failed verifications, or JUNK_PER_ADDRESS junk posts. */
const ALLOWANCE = FAILURES_PER_ADDRESS * FAILURE;
/** While other instances' verifications hold the allowance, how often it is asked again. */
const RECHECK_MS = 100;

/** How a verification paid for by the allowance ended. */
export type Verified<T> = { verdict: "passed" | "failed" | "unanswered"; result: T };

/**
 * The per-address allowance of failures, shared by every instance through the
 * state, in two counts: `held` (failures plus verifications in flight) and
 * `failures` alone. A verification reserves a failure's worth of `held`
 * before it starts and gives it back unless it failed, so concurrent
 * forgeries from one address cannot exceed the allowance between them, on
 * one instance or many. When `held` is full but `failures` is not, the
 * allowance is held by verifications in flight (a burst of genuine visitors
 * behind one address, on any instance): this one waits for them instead of
 * being refused.
 */
export class FailureAllowance {
  private readonly held: Limit;
  private readonly failures: Limit;
  /** Emits an address when one of its verifications on this instance settles. */
  private readonly settled = new EventEmitter().setMaxListeners(0);

  constructor(state: SharedState) {
    const limit = (name: string, points: number) =>
      // While Redis is away each instance keeps counting on its own.
      state.limit({ name, points, durationSeconds: FAILURE_WINDOW_SECONDS, whenAway: "local" });
    // A verification starts while the failures are under the allowance, with room for the verifications in flight.
    this.held = limit("failures-held", ALLOWANCE + FAILURE - CHEAP_FAILURE);
    this.failures = limit("failures", ALLOWANCE);
  }

  /** A failure that needed no verification. */
  async charge(address: string): Promise<void> {
    await Promise.all([this.held.charge(address, CHEAP_FAILURE), this.failures.charge(address, CHEAP_FAILURE)]);
  }

  /**
   * Runs `verify` on the address's allowance, telling it how much of the
   * allowance the address holds (its rank among waiting verifications), or
   * answers "exhausted" when failures have spent it. Waits at most until
   * `deadline` for verifications in flight to settle.
   */
  async verify<T>(
    address: string,
    deadline: number,
    verify: (used: number) => Promise<Verified<T>>,
  ): Promise<T | "exhausted"> {
    for (;;) {
      const { verdict, used } = await this.held.take(address, FAILURE);
      // Unavailable: the store could not count (it fails open, like the limits it backs up).
      if (verdict !== "limited") return this.run(address, used, verify, verdict === "allowed");
      // A refused take still counted its points.
      await this.held.refund(address, FAILURE);
      if ((await this.failures.used(address)) >= ALLOWANCE) return "exhausted";
      if (!(await this.nextSettled(address, deadline))) return "exhausted";
    }
  }

  private async run<T>(
    address: string,
    used: number,
    verify: (used: number) => Promise<Verified<T>>,
    reserved: boolean,
  ): Promise<T> {
    let verdict: Verified<T>["verdict"] = "passed";
    try {
      const verified = await verify(used);
      verdict = verified.verdict;
      return verified.result;
    } finally {
      if (reserved && verdict === "failed") await this.failures.charge(address, FAILURE);
      if (reserved && verdict === "passed") await this.held.refund(address, FAILURE);
      if (reserved && verdict === "unanswered") {
        await Promise.all([
          this.held.refund(address, FAILURE - CHEAP_FAILURE),
          this.failures.charge(address, CHEAP_FAILURE),
        ]);
      }
      this.settled.emit(address);
    }
  }

  /** Waits for a verification of `address` here to settle, or a moment for those of other instances; false past `deadline`. */
  private async nextSettled(address: string, deadline: number): Promise<boolean> {
    const wait = Math.min(RECHECK_MS, deadline - Date.now());
    if (wait <= 0) return false;
    await once(this.settled, address, { signal: AbortSignal.timeout(wait) }).catch(() => undefined);
    return true;
  }
}
