import { content } from "~/content";
import type { Notice } from "~/signup-result";

/**
 * Everything a sign-up can end in, with the data its message needs. The
 * pipeline (signup.server.ts) speaks these codes; this module alone turns them
 * into an HTTP status and the pt-BR notice the visitor reads, from `content`.
 */
export type SignupOutcome =
  | { code: "relayed" | "replay" }
  /** A bot is answered as if it succeeded, so it learns nothing. */
  | { code: "bot"; detail: string }
  | { code: "unreadable"; status: number; detail: string }
  | { code: "form-expired"; detail: string }
  | { code: "store-unavailable"; detail: string }
  | { code: "webhook-status"; status: number; statusText: string; text: string }
  | { code: "webhook-unreachable" | "sink-failed"; reason: string }
  | {
      code:
        | "stopping"
        | "rate-limited"
        | "invalid-email"
        | "captcha-missing"
        | "challenge-missing"
        | "captcha-rejected"
        | "captcha-unreachable"
        | "challenge-wrong"
        | "challenge-expired"
        | "rate-limited-question-budget"
        | "question-store-unavailable"
        | "rate-limited-relay-ceiling";
    };

export type OutcomeCode = SignupOutcome["code"];

const { messages } = content;
const failure = (description: string): Notice => ({ title: messages.failureTitle, description });

type FixedCode = Exclude<OutcomeCode, "relayed" | "replay" | "bot" | "unreadable" | "webhook-status">;

/** Status and notice of every code whose message needs no data; codes that read alike share a row. */
const ANSWERS: Array<[FixedCode[], number, Notice]> = [
  [["stopping"], 503, messages.restarting],
  [["rate-limited", "rate-limited-relay-ceiling"], 429, messages.tooMany],
  [["form-expired"], 400, messages.formExpired],
  [["invalid-email"], 400, messages.invalidEmail],
  [["captcha-missing", "captcha-rejected"], 400, messages.captchaMissing],
  [["challenge-missing"], 400, messages.challengeMissing],
  [["challenge-wrong"], 400, messages.challengeWrong],
  [["challenge-expired"], 400, messages.challengeExpired],
  [["rate-limited-question-budget"], 429, messages.questionBudgetSpent],
  [["question-store-unavailable"], 503, messages.questionUnavailable],
  [["store-unavailable"], 503, messages.storeUnavailable],
  [["captcha-unreachable", "webhook-unreachable", "sink-failed"], 502, failure(messages.failureFallback)],
];
const FIXED = new Map(
  ANSWERS.flatMap(([codes, status, notice]) => codes.map((code) => [code, { status, notice }] as const)),
);

export function isSuccess(outcome: SignupOutcome): boolean {
  return outcome.code === "relayed" || outcome.code === "replay" || outcome.code === "bot";
}

/** What the visitor is answered: the HTTP status and the notice the form shows. */
export function answerFor(outcome: SignupOutcome, siteName: string): { status: number; notice: Notice } {
  switch (outcome.code) {
    case "relayed":
    case "replay":
    case "bot":
      return { status: 200, notice: messages.success(siteName) };
    case "unreadable":
      return { status: outcome.status, notice: messages.unreadable };
    case "webhook-status":
      return { status: 502, notice: failure(messages.webhookStatus(outcome.status, outcome.statusText, outcome.text)) };
    default:
      return FIXED.get(outcome.code)!;
  }
}

/** The `outcome` and `detail` of the sign-up's log line. */
export function logFieldsOf(outcome: SignupOutcome): { outcome: string; detail?: string } {
  switch (outcome.code) {
    case "webhook-status":
      return { outcome: `webhook-status-${outcome.status}` };
    case "webhook-unreachable":
    case "sink-failed":
      return { outcome: `${outcome.code}-${outcome.reason}` };
    case "rate-limited":
      return { outcome: outcome.code, detail: "client" };
    default:
      return { outcome: outcome.code, detail: "detail" in outcome ? outcome.detail : undefined };
  }
}
