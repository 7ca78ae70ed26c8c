import { content } from "~/content";
import type { DeliveryResult } from "~/delivery/submission";
import type { Notice } from "./result";

const { messages } = content;
const failure = (description: string): Notice => ({ title: messages.failureTitle, description });
const fallbackFailure = failure(messages.failureFallback);

/** The status and notice of every code whose message needs no data. */
const ANSWERS = {
  stopping: [503, messages.restarting],
  "rate-limited": [429, messages.tooMany],
  "rate-limited-relay-ceiling": [429, messages.tooManyNow],
  "form-expired": [400, messages.formExpired],
  "form-unreadable": [400, messages.formUnreadable],
  "invalid-email": [400, messages.invalidEmail],
  "captcha-missing": [400, messages.captchaMissing],
  "captcha-rejected": [400, messages.captchaMissing],
  "question-missing": [400, messages.questionMissing],
  "question-wrong": [400, messages.questionWrong],
  "question-expired": [400, messages.questionExpired],
  "rate-limited-question-budget": [429, messages.questionBudgetSpent],
  "question-store-unavailable": [503, messages.questionUnavailable],
  "store-unavailable": [503, messages.storeUnavailable],
  "captcha-unreachable": [502, fallbackFailure],
  "webhook-unreachable": [502, fallbackFailure],
  "sink-failed": [502, fallbackFailure],
} satisfies Record<string, [number, Notice]>;

/** Refusals that carry no data: the pipeline returns them as `{ code }`. */
export type PlainCode = Exclude<keyof typeof ANSWERS, "store-unavailable" | "webhook-unreachable" | "sink-failed">;

/** Everything a sign-up can end in; this module alone turns it into an HTTP status and a pt-BR notice. */
export type SignupOutcome =
  /** `known-email` (relayed within its window, docs/signup.md "Limits") reads like a first relay, so nobody learns who is listed. */
  | { code: "relayed" | "queued" | "replay" | "known-email" }
  /** Answered as if it succeeded, so it learns nothing. */
  | { code: "bot"; detail: string }
  | { code: "unreadable"; status: number; detail: string }
  | { code: "store-unavailable"; detail: string }
  | { code: "webhook-status"; status: number; statusText: string; text: string }
  | { code: "webhook-unreachable" | "sink-failed"; reason: string }
  | { code: PlainCode };

const SUCCESSES = new Set<SignupOutcome["code"]>(["relayed", "queued", "replay", "known-email", "bot"]);

export const isSuccess = (outcome: SignupOutcome) => SUCCESSES.has(outcome.code);

export function answerFor(outcome: SignupOutcome): { status: number; notice: Notice } {
  if (isSuccess(outcome)) return { status: 200, notice: messages.success };
  if (outcome.code === "unreadable") return { status: outcome.status, notice: messages.unreadable };
  if (outcome.code === "webhook-status")
    return { status: 502, notice: failure(messages.webhookStatus(outcome.status, outcome.statusText, outcome.text)) };
  const [status, notice] = ANSWERS[outcome.code as keyof typeof ANSWERS];
  return { status, notice };
}

export function outcomeOf(result: DeliveryResult): SignupOutcome {
  if (result.kind === "delivered") return { code: "relayed" };
  if (result.kind === "queued") return { code: "queued" };
  if (result.kind === "status")
    return { code: "webhook-status", status: result.status, statusText: result.statusText, text: result.text };
  // Nothing was acknowledged: the visitor sends again once Redis is back.
  if (result.kind === "queue") return { code: "store-unavailable", detail: `queue: ${result.reason}` };
  return { code: result.kind === "sink" ? "sink-failed" : "webhook-unreachable", reason: result.reason };
}

/** For the sign-up's log line. */
export function logFieldsOf(outcome: SignupOutcome): { outcome: string; detail?: string } {
  if (outcome.code === "webhook-status") return { outcome: `webhook-status-${outcome.status}` };
  if (outcome.code === "webhook-unreachable" || outcome.code === "sink-failed")
    return { outcome: `${outcome.code}-${outcome.reason}` };
  if (outcome.code === "rate-limited") return { outcome: outcome.code, detail: "address" };
  return { outcome: outcome.code, detail: "detail" in outcome ? outcome.detail : undefined };
}
