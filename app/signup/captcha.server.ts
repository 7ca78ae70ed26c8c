import { postWithDeadline } from "~/server/http-client.server";

/** Waiting for a turn included; past it the sign-up fails closed. */
export const SITEVERIFY_TIMEOUT_MS = 2_500;
/** Per instance: hCaptcha throttles a secret that calls too often, and a forged flood must not take every turn. */
export const MAX_SITEVERIFY_IN_FLIGHT = 16;
/** siteverify answers a few hundred bytes; a bigger answer is not one. */
const SITEVERIFY_ANSWER_BYTES = 16 * 1024;

type SiteverifyAnswer = "valid" | "invalid" | "unreachable";
/** `no turn`: this instance's calls in flight were at their cap until the deadline, so none was made. */
type CaptchaVerdict = SiteverifyAnswer | "no turn";

/** Anything but a clear answer in time (timeout, non-2xx, bad JSON) is "unreachable": the caller fails closed. */
export class CaptchaVerifier {
  private readonly gate = new CallGate(MAX_SITEVERIFY_IN_FLIGHT);

  constructor(private readonly options: { secret: string; siteKey: string; verifyUrl: string }) {}

  /** `rank`: how much of its failure allowance the sender's address has used; lower ranks get turns first. */
  async verify(token: string, remoteIp: string | null, deadline: number, rank: number): Promise<CaptchaVerdict> {
    const until = Math.min(deadline, Date.now() + SITEVERIFY_TIMEOUT_MS);
    return this.gate.run(rank, until, () => this.ask(token, remoteIp, until - Date.now()));
  }

  private async ask(token: string, remoteIp: string | null, timeoutMs: number): Promise<SiteverifyAnswer> {
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
      if (!answer.ok || answer.cut) return "unreachable";
      const verdict = JSON.parse(answer.text) as { success?: unknown };
      return verdict.success === true ? "valid" : "invalid";
    } catch {
      return "unreachable";
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
