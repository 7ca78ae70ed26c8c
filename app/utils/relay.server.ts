import { failureReason, postWithDeadline } from "./http-client.server";
import { publicErrorText } from "./webhook-error-text.server";

/** The JSON body the automation receives, exactly these five fields. */
export type Submission = {
  email: string;
  hcaptchaToken: string;
  source: string;
  ts: string;
  userAgent: string;
};

export type RelayOutcome =
  | { ok: true }
  /** The webhook answered, but not with 2xx. */
  | { ok: false; kind: "status"; status: number; statusText: string; text: string }
  /** No answer: refused, reset or timed out. */
  | { ok: false; kind: "unreachable"; reason: string }
  /** The local JSON-lines file could not take the line (disk full, unwritable). */
  | { ok: false; kind: "sink"; reason: string };

export type Relay = (submission: Submission) => Promise<RelayOutcome>;

/** Enough of an error answer to show its message; the rest is never downloaded. */
const ERROR_BODY_BYTES = 4096;

/** POSTs the submission as JSON; the URL never leaves this closure, nor reaches the visitor. */
export function webhookRelay(url: string, timeoutMs: number): Relay {
  return async (submission) => {
    try {
      const answer = await postWithDeadline(url, {
        contentType: "application/json",
        body: JSON.stringify(submission),
        timeoutMs,
        maxBodyBytes: ERROR_BODY_BYTES,
      });
      if (answer.ok) return { ok: true };
      return {
        ok: false,
        kind: "status",
        status: answer.status,
        statusText: publicErrorText(answer.statusText, url),
        text: publicErrorText(answer.text, url, answer.cut),
      };
    } catch (error) {
      return { ok: false, kind: "unreachable", reason: failureReason(error) };
    }
  };
}
