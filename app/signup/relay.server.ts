import { failureReason, postWithDeadline } from "~/server/http-client.server";
import { publicErrorText } from "./webhook-error-text.server";

/** The longest the webhook may take to answer before the visitor is told the relay failed. */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Enough of an error answer to show its message; the rest is never downloaded. */
const ERROR_BODY_BYTES = 4096;

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

/** Hands one submission on: to the webhook, or to the local file. `timeoutMs` is what the sign-up has left. */
export type Relay = (submission: Submission, timeoutMs: number) => Promise<RelayOutcome>;

/** POSTs the submission as JSON; the URL never leaves this closure, nor reaches the visitor. */
export function webhookRelay(url: string): Relay {
  return async (submission, timeoutMs) => {
    try {
      const answer = await postWithDeadline(url, {
        contentType: "application/json",
        body: JSON.stringify(submission),
        timeoutMs: Math.min(timeoutMs, WEBHOOK_TIMEOUT_MS),
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
