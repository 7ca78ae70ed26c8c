import { postWithDeadline } from "./http-client.server";

/** siteverify answers a few hundred bytes; a bigger answer is not one. */
const SITEVERIFY_ANSWER_BYTES = 16 * 1024;

export type CaptchaVerifier = {
  secret: string;
  siteKey: string;
  verifyUrl: string;
  timeoutMs: number;
};

export type CaptchaVerdict = "valid" | "invalid" | "unreachable";

/**
 * Asks hCaptcha's siteverify whether a widget token is genuine and unused.
 * Anything but a clear answer (timeout, non-2xx, unreadable JSON) is
 * "unreachable", and the caller fails closed.
 */
export async function verifyCaptcha(
  verifier: CaptchaVerifier,
  token: string,
  remoteIp: string | null,
): Promise<CaptchaVerdict> {
  const form = new URLSearchParams({ secret: verifier.secret, response: token, sitekey: verifier.siteKey });
  if (remoteIp) form.set("remoteip", remoteIp);
  try {
    const answer = await postWithDeadline(verifier.verifyUrl, {
      contentType: "application/x-www-form-urlencoded",
      body: form.toString(),
      timeoutMs: verifier.timeoutMs,
      maxBodyBytes: SITEVERIFY_ANSWER_BYTES,
    });
    if (!answer.ok || answer.cut) return "unreachable";
    const verdict = JSON.parse(answer.text) as { success?: unknown };
    return verdict.success === true ? "valid" : "invalid";
  } catch {
    return "unreachable";
  }
}
