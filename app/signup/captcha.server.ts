import { RateLimiterMemory } from "rate-limiter-flexible";
import { failureReason, postWithDeadline } from "~/server/http-client.server";
import type { Metrics, SiteverifyResult } from "~/server/metrics.server";
import type { Limit, SharedState } from "~/state/shared-state.server";

/** Waiting for a turn included; past it the sign-up fails closed. */
export const SITEVERIFY_TIMEOUT_MS = 2_500;
// The numbers of the two limits on siteverify calls, and why: docs/signup.md, "Limits" (decision 015).
/** Per instance: hCaptcha throttles a secret that calls too often, and a forged flood must not take every turn. */
export const MAX_SITEVERIFY_IN_FLIGHT = 16;
/** Per sender's address, for the whole deployment: the rate of the calls it causes, after a burst. */
export const SITEVERIFY_CALLS_PER_SECOND = 10;
export const SITEVERIFY_BURST = { points: 30, durationSeconds: 60 };
/** siteverify answers a few hundred bytes; a bigger answer is not one. */
const SITEVERIFY_ANSWER_BYTES = 16 * 1024;

type SiteverifyAnswer = "valid" | "invalid" | "unreachable";
/**
 * `no turn`: this instance's calls in flight were at their cap until the deadline; `over rate`: the sender's address
 * has spent its rate and burst. Neither made a call.
 */
type CaptchaVerdict = SiteverifyAnswer | "no turn" | "over rate";

/** Anything but a clear answer in time (timeout, non-2xx, bad JSON) is "unreachable": the caller fails closed. */
export class CaptchaVerifier {
  private readonly gate = new CallGate(MAX_SITEVERIFY_IN_FLIGHT);
  private readonly callsPerAddress: Limit;
  /** This instance's calls per sender's network this second, for turns only: an IPv6 /48's /64s wait as one sender. */
  private readonly callsPerNetwork = new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: 1 });

  constructor(
    private readonly options: { secret: string; siteKey: string; verifyUrl: string },
    state: SharedState,
    private readonly metrics?: Pick<Metrics, "siteverify">,
  ) {
    // While Redis is away each instance counts on its own.
    this.callsPerAddress = state.limit({
      name: "siteverify-calls",
      points: SITEVERIFY_CALLS_PER_SECOND,
      durationSeconds: 1,
      burst: SITEVERIFY_BURST,
      whenAway: "local",
    });
  }

  /**
   * `sender`: its address (clientKey), whose rate a call spends, and its network (networkKey). The fewer calls the
   * address and its network have made, the sooner it gets a turn.
   */
  async verify(
    token: string,
    remoteIp: string | null,
    sender: { address: string; network: string },
    deadline: number,
  ): Promise<CaptchaVerdict> {
    const { verdict, used } = await this.callsPerAddress.take(sender.address);
    if (verdict === "limited") return "over rate";
    const { consumedPoints: usedByNetwork } = await this.callsPerNetwork.consume(sender.network);
    const until = Math.min(deadline, Date.now() + SITEVERIFY_TIMEOUT_MS);
    return this.gate.run(Math.max(used, usedByNetwork), until, () => this.ask(token, remoteIp, until - Date.now()));
  }

  private async ask(token: string, remoteIp: string | null, timeoutMs: number): Promise<SiteverifyAnswer> {
    const result = await this.call(token, remoteIp, timeoutMs);
    this.metrics?.siteverify(result);
    return result === "valid" || result === "invalid" ? result : "unreachable";
  }

  private async call(token: string, remoteIp: string | null, timeoutMs: number): Promise<SiteverifyResult> {
    const { secret, siteKey, verifyUrl } = this.options;
    const form = new URLSearchParams({ secret, response: token, sitekey: siteKey });
    if (remoteIp) form.set("remoteip", remoteIp);
    try {
      const answer = await postWithDeadline(verifyUrl, {
        contentType: "application/x-www-form-urlencoded",
        body: form.toString(),
        timeoutMs,
        maxBodyBytes: SITEVERIFY_ANSWER_BYTES,
      });
      if (!answer.ok || answer.cut) return "error";
      const verdict = JSON.parse(answer.text) as { success?: unknown };
      return verdict.success === true ? "valid" : "invalid";
    } catch (error) {
      return failureReason(error) === "timeout" ? "timeout" : "error";
    }
  }
}

type Waiter = { rank: number; arrival: number; start: () => void };

/** At most `capacity` calls at once; a freed turn goes to the lowest rank, then the newest arrival (decision 015). */
export class CallGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private arrivals = 0;

  constructor(private readonly capacity: number) {}

  async run<T>(rank: number, deadline: number, call: () => Promise<T>): Promise<T | "no turn"> {
    if (this.running < this.capacity) this.running += 1;
    else if (!(await this.turn(rank, deadline))) return "no turn";
    try {
      return await call();
    } finally {
      // The turn passes straight on, so no newcomer can slip in between: to the lowest rank, then the newest
      // arrival (the list stays sorted, so each sort is a pass over it).
      this.waiting.sort((a, b) => a.rank - b.rank || b.arrival - a.arrival);
      const waiter = this.waiting.shift();
      if (waiter) waiter.start();
      else this.running -= 1;
    }
  }

  /** False when no turn came before `deadline`. */
  private turn(rank: number, deadline: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        rank,
        arrival: this.arrivals++,
        start: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve(false);
      }, deadline - Date.now());
      this.waiting.push(waiter);
    });
  }
}
