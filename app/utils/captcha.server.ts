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
    const response = await fetch(verifier.verifyUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      signal: AbortSignal.timeout(verifier.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return "unreachable";
    }
    const answer = (await response.json()) as { success?: unknown };
    return answer.success === true ? "valid" : "invalid";
  } catch {
    return "unreachable";
  }
}
