import { EventEmitter, once } from "node:events";
import type { Limit, SharedState } from "~/state/shared-state.server";

/** Failed verifications (forged or spent tokens, wrong answers) before what would cost one is refused. */
export const FAILURES_PER_ADDRESS = 20;
const FAILURE_WINDOW_SECONDS = 5 * 60;
/** Junk (no verification) weighs a fifth: one bad device behind a shared address must not lock out its neighbours. */
const JUNK_PER_FAILURE = 5;
export const JUNK_PER_ADDRESS = FAILURES_PER_ADDRESS * JUNK_PER_FAILURE;

/** In points: a failed verification, and what a verification holds while in flight. */
const FAILURE = JUNK_PER_FAILURE;
/** In points: junk, and a call siteverify left unanswered (so a slow or failing siteverify is still bounded). */
const CHEAP_FAILURE = 1;
const ALLOWANCE = FAILURES_PER_ADDRESS * FAILURE;
/** While other instances' verifications hold the allowance, how often it is asked again. */
const RECHECK_MS = 100;

type Verified<T> = { verdict: "passed" | "failed" | "unanswered"; result: T };
type Verification<T> = (used: number) => Promise<Verified<T>>;

/** Per address, for every instance (docs/decisions/015-…): `held` counts failures and verifications in flight. */
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

  /** `verify` is told how much the address holds (its rank among waiting verifications). */
  async verify<T>(address: string, deadline: number, verify: Verification<T>): Promise<T | "exhausted"> {
    for (;;) {
      const { verdict, used } = await this.held.take(address, FAILURE);
      // Unavailable: the store could not count (it fails open, like the limits it backs up).
      if (verdict !== "limited") return this.run(address, used, verify, verdict === "allowed");
      // A refused take still counted its points.
      await this.held.refund(address, FAILURE);
      if ((await this.failures.used(address)) >= ALLOWANCE) return "exhausted";
      // Verifications in flight hold it: wait for one of the address's here, or a moment for other instances'.
      const wait = Math.min(RECHECK_MS, deadline - Date.now());
      if (wait <= 0) return "exhausted";
      await once(this.settled, address, { signal: AbortSignal.timeout(wait) }).catch(() => undefined);
    }
  }

  private async run<T>(address: string, used: number, verify: Verification<T>, reserved: boolean): Promise<T> {
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
}
