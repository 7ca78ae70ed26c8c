/** What every way of delivering a sign-up shares: what is sent, and what became of it. */

/** The JSON body the automation receives, exactly these five fields. */
export type Submission = { email: string; hcaptchaToken: string; source: string; ts: string; userAgent: string };

/** What became of a sign-up handed to delivery: one POST's answer, or what the file or the queue made of it. */
export type DeliveryResult =
  /** The webhook answered 2xx (direct, queued), or the line is in the file (sink). */
  | { kind: "delivered" }
  /** Held durably in the queue, which will deliver it. */
  | { kind: "queued" }
  | { kind: "status"; status: number; statusText: string; text: string; cut: boolean; retryAfterMs: number | null }
  /** No answer from the webhook: refused, reset, timed out. */
  | { kind: "unreachable"; reason: string }
  /** The file or the queue (Redis) could not take it. */
  | { kind: "sink" | "queue"; reason: string };

/** `key`: the submission's stable id; `timeoutMs`: what the sign-up has left. */
export type Relay = (submission: Submission, options: { key: string; timeoutMs: number }) => Promise<DeliveryResult>;
