import { postWithDeadline } from "~/server/http-client.server";

/** The longest siteverify may take before the sign-up fails closed. */
export const SITEVERIFY_TIMEOUT_MS = 2_500;
/** siteverify answers a few hundred bytes; a bigger answer is not one. */
const SITEVERIFY_ANSWER_BYTES = 16 * 1024;

export type CaptchaVerdict = "valid" | "invalid" | "unreachable";

/**
 * Asks hCaptcha's siteverify whether a widget token is genuine and unused.
 * Anything but a clear answer (timeout, non-2xx, unreadable JSON) is
 * "unreachable", and the caller fails closed.
 */
export class CaptchaVerifier {
  constructor(private readonly options: { secret: string; siteKey: string; verifyUrl: string }) {}

  async verify(token: string, remoteIp: string | null, timeoutMs = SITEVERIFY_TIMEOUT_MS): Promise<CaptchaVerdict> {
    const { secret, siteKey, verifyUrl } = this.options;
    const form = new URLSearchParams({ secret, response: token, sitekey: siteKey });
    if (remoteIp) form.set("remoteip", remoteIp);
    try {
      const answer = await postWithDeadline(verifyUrl, {
        contentType: "application/x-www-form-urlencoded",
        body: form.toString(),
        timeoutMs: Math.min(timeoutMs, SITEVERIFY_TIMEOUT_MS),
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
