import type { Delivery } from "~/delivery/delivery.server";
import { perSharedRender } from "~/page/shared-render.server";
import { clientAddress, clientKey } from "~/server/client-address.server";
import { canAdmitSignup, SIGNUP_TIME_BUDGET_MS } from "~/server/graceful-stop.server";
import { logEvent, maskEmail } from "~/server/log.server";
import type { Metrics } from "~/server/metrics.server";
import type { SignedSettings } from "~/server/settings.server";
import type { SharedState } from "~/state/shared-state.server";
import { BOT_TRAP_FIELDS, BotTrap } from "./bot-trap.server";
import { CaptchaVerifier } from "./captcha.server";
import { normalizeEmail } from "./email.server";
import { answerFor, isSuccess, logFieldsOf, outcomeOf, type PlainCode, type SignupOutcome } from "./outcomes.server";
import { networkKey } from "./network.server";
import { FallbackQuestions, questionRelayBudget } from "./question.server";
import { RelayPace } from "./relay-pace.server";
import { ReplayGuard } from "./replay-guard.server";
import { BodyError, readUrlEncodedForm } from "./request-body.server";
import { FIELD, type FormTokens, type SignupResult } from "./result";
import { SignedTokens } from "./signed-tokens.server";

/** Real hCaptcha tokens are a few kilobytes; anything longer is not one. */
const MAX_CAPTCHA_TOKEN_LENGTH = 8192;
const MAX_USER_AGENT_LENGTH = 1024;
/** No browser's identification starts like a spreadsheet formula; the automation's sheet must not run one. */
const FORMULA_START = /^[\s=+\-@]+/;
/** A claim on a submission outlives the longest sign-up by this much, so a slow one is never relayed twice. */
const CLAIM_MARGIN_MS = 1_000;
/** Refreshes, retries and double clicks within it are answered, not relayed. */
const REPLAY_MEMORY_MS = 60 * 60 * 1000;
/** The list cannot be used to flood someone's inbox with the automation's confirmation e-mails. */
const EMAIL_RELAY_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** PrevlyFormBroken's window: within it a network's presses are one visitor's, so a script cannot pass for a crowd. */
const PRESS_MEMORY_SECONDS = 60 * 60;

/** The question's verdicts as refusals: its budgets hold for the deployment, so they close while Redis is away. */
const refusalOf = (verdict: "allowed" | "limited" | "unavailable"): PlainCode | null =>
  verdict === "allowed" ? null : verdict === "limited" ? "rate-limited-question-budget" : "question-store-unavailable";

/** Read once each: a second value would go unread, and could hide a filled bot trap behind an empty one. */
const SINGLE_FIELDS = [...Object.values(FIELD), ...BOT_TRAP_FIELDS];

type Proof = { kind: "captcha"; token: string } | { kind: "question"; token: string; answer: string };

/** A submission that passed the cheap checks; `address` and `network` are what its sender is limited by. */
type Candidate = {
  email: string;
  proof: Proof;
  remoteIp: string | null;
  address: string;
  network: string;
  userAgent: string;
  ts: string;
};

/** One request's way through the pipeline: what the answer needs besides the outcome. */
class Visit {
  readonly startedAt = performance.now();
  /** Echoed back on failure. */
  typedEmail = "";
  /** The question answered, echoed back with it when the e-mail was refused. */
  typedAnswer = { token: "", answer: "" };
  /** The post carried the page's own bot-trap fields: only such a post earns fresh ones. */
  fromPage = false;
  /** A press of the form's 'Cadastrar' (its bot-trap fields came), the first from its network in PRESS_MEMORY_SECONDS. */
  pressed = false;
  /** The captcha token went out to siteverify or the webhook: the widget must make a new one. */
  captchaSpent = false;
  /** For the sign-up's outgoing calls: SIGNUP_TIME_BUDGET_MS after admission. */
  deadline = 0;
}

/** The steps, in order (docs/signup.md; decision 015), each request ending in one outcome. */
export class Signup {
  private readonly botTrap: BotTrap;
  private readonly captcha: CaptchaVerifier | null;
  private readonly questions: FallbackQuestions;
  private readonly replays: ReplayGuard<SignupOutcome>;
  /** The ledger again, keyed by the address alone and remembered for EMAIL_RELAY_INTERVAL_MS. */
  private readonly emails: ReplayGuard<SignupOutcome>;
  private readonly relayCeiling;
  /** The question is easier for a script than hCaptcha: its relays get a small budget of their own. */
  private readonly questionRelays;
  private readonly presses;
  private readonly pace;
  /** One set of tokens per shared render: the page and its data request hand out the same. */
  readonly formTokens: (now?: number) => FormTokens;

  constructor(
    private readonly settings: SignedSettings,
    state: SharedState,
    private readonly delivery: Delivery,
    /** Told each outcome and siteverify call (for /metrics). */
    private readonly metrics?: Pick<Metrics, "signup" | "siteverify">,
  ) {
    const tokens = new SignedTokens(settings.SIGNUP_SECRET, settings.SIGNUP_SECRET_PREVIOUS);
    this.botTrap = new BotTrap(tokens);
    const { HCAPTCHA_SECRET: secret, HCAPTCHA_SITE_KEY: siteKey, HCAPTCHA_VERIFY_URL: verifyUrl } = settings;
    this.captcha = secret ? new CaptchaVerifier({ secret, siteKey, verifyUrl }, state, metrics) : null;
    this.questions = FallbackQuestions.create(tokens, state);
    // While Redis is away the ceiling holds per instance; the question's budget must hold for the whole
    // deployment, so its path closes instead.
    this.relayCeiling = state.limit({
      name: "relays",
      points: settings.RELAY_LIMIT_PER_SECOND,
      durationSeconds: 1,
      whenAway: "local",
    });
    this.questionRelays = questionRelayBudget(state);
    this.presses = state.limit({
      name: "form-presses",
      points: 1,
      durationSeconds: PRESS_MEMORY_SECONDS,
      whenAway: "local",
    });
    const relayed: SignupOutcome = { code: "relayed" };
    const guard = { holdMs: SIGNUP_TIME_BUDGET_MS + CLAIM_MARGIN_MS, relayed, isRelay: isSuccess };
    this.pace = new RelayPace(state.relayTimes);
    this.replays = new ReplayGuard<SignupOutcome>(state.ledger, { ...guard, rememberMs: REPLAY_MEMORY_MS });
    this.emails = new ReplayGuard<SignupOutcome>(state.ledger, { ...guard, rememberMs: EMAIL_RELAY_INTERVAL_MS });
    this.formTokens = perSharedRender((now) => ({
      botTrap: this.botTrap.fields(now),
      question: this.questions.ask(now),
    }));
  }

  async handle(request: Request) {
    const visit = new Visit();
    const remoteIp = clientAddress(request.headers, this.settings.TRUST_PROXY);
    return this.answer(await this.run(request, visit, remoteIp), visit);
  }

  private async run(request: Request, visit: Visit, remoteIp: string | null): Promise<SignupOutcome> {
    let form: URLSearchParams;
    try {
      form = await readUrlEncodedForm(request, SINGLE_FIELDS);
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      return { code: "unreadable", status: error.status, detail: error.message };
    }
    const field = (name: string) => form.get(name) ?? "";
    visit.typedEmail = field(FIELD.email).slice(0, 512);
    visit.typedAnswer = { token: field(FIELD.questionToken).trim(), answer: field(FIELD.questionAnswer).slice(0, 512) };
    // Whatever the trap makes of it: a form refused as unreadable or as a bot's is how a broken deployment looks.
    if (BOT_TRAP_FIELDS.some((name) => form.has(name)))
      visit.pressed = (await this.presses.take(networkKey(remoteIp))).verdict === "allowed";

    // Admitted only once the body is read: a visitor still uploading when a stop begins is not waited for
    // (decision 003).
    if (!canAdmitSignup()) return { code: "stopping" };
    visit.deadline = Date.now() + SIGNUP_TIME_BUDGET_MS;

    const trap = this.botTrap.inspect(form);
    // Only a post carrying fields this server signed earns fresh ones: junk gets nothing a script can use.
    visit.fromPage = trap.kind === "human" || trap.kind === "stale";
    if (trap.kind === "bot") return { code: "bot", detail: trap.why };
    if (trap.kind === "unreadable") return { code: "form-unreadable" };
    if (trap.kind === "stale") return { code: "form-expired" };

    const email = normalizeEmail(visit.typedEmail);
    if (email === null) return { code: "invalid-email" };

    const proof = this.proofOf(field, form);
    if (!("kind" in proof)) return proof;

    visit.captchaSpent = proof.kind === "captcha";
    const candidate: Candidate = {
      email,
      proof,
      remoteIp,
      address: clientKey(remoteIp),
      network: networkKey(remoteIp),
      userAgent: (request.headers.get("user-agent") ?? "").slice(0, MAX_USER_AGENT_LENGTH).replace(FORMULA_START, ""),
      ts: new Date().toISOString(),
    };
    const once = await this.replays.once(ReplayGuard.keyOf(email, `${proof.kind}:${proof.token}`), () =>
      this.verifyAndRelay(candidate, visit),
    );
    // Nothing was verified or relayed here: the visitor's proof is still good for a retry.
    if (once.kind === "unavailable") {
      visit.captchaSpent = false;
      return { code: "store-unavailable", detail: once.why };
    }
    // Refused before siteverify: the same token is good once the address's rate allows again.
    if (once.outcome.code === "rate-limited") visit.captchaSpent = false;
    return once.duplicate && isSuccess(once.outcome) ? { code: "replay" } : once.outcome;
  }

  private proofOf(field: (name: string) => string, form: URLSearchParams): Proof | { code: PlainCode } {
    const captchaToken = field(FIELD.captchaToken).trim();
    const answer = field(FIELD.questionAnswer);
    // An unanswered question is no proof at all, like an unsolved captcha.
    const questionToken = answer.trim() ? field(FIELD.questionToken).trim() : "";
    if (captchaToken && captchaToken.length <= MAX_CAPTCHA_TOKEN_LENGTH)
      return { kind: "captcha", token: captchaToken };
    if (!captchaToken && questionToken) return { kind: "question", token: questionToken, answer };
    // Without JavaScript the page showed the question, not a captcha: say what to do there.
    const questionShown = !captchaToken && form.has(FIELD.questionToken);
    return { code: questionShown ? "question-missing" : "captcha-missing" };
  }

  /** Once per submission across every instance (the replay guard sees to it). */
  private async verifyAndRelay(candidate: Candidate, visit: Visit): Promise<SignupOutcome> {
    // The budgets and a question's answers are spent by a relay alone, so answers that relay nothing new cannot exhaust
    // them; every answer asks whether they are left first, so an address already listed is refused exactly when a new
    // one is, and a refusal tells nobody who is on the list.
    const refusal = (await this.verify(candidate, visit.deadline)) ?? (await this.budgets(candidate, "peek"));
    if (refusal) return { code: refusal };
    const signupId = ReplayGuard.keyOf(candidate.email, "first relay of the day");
    const startedAt = Date.now();
    const once = await this.emails.once(signupId, async () => {
      const spent = await this.budgets(candidate, "spend");
      if (spent) return { code: spent };
      const outcome = await this.relayOnce(candidate, signupId, visit.deadline);
      if (isSuccess(outcome)) void this.pace.record(Date.now() - startedAt);
      return outcome;
    });
    if (once.kind === "unavailable") return { code: "store-unavailable", detail: once.why };
    if (!once.duplicate || !isSuccess(once.outcome)) return once.outcome;
    // Answered when a new address would be: the clock must not tell who is listed either.
    await this.pace.waitFrom(startedAt, visit.deadline);
    return { code: "known-email" };
  }

  /**
   * The relays the question may make (its sender's shares, the deployment's), the question's own answers, and the relay
   * ceiling (direct mode). `peek` asks whether they are left, `spend` takes one of each; null when they allow.
   */
  private async budgets(candidate: Candidate, how: "peek" | "spend"): Promise<PlainCode | null> {
    const { proof } = candidate;
    if (proof.kind === "question") {
      const verdict =
        how === "peek" ? await this.questionRelays.open(candidate) : await this.questionRelays.spend(candidate);
      const refusal = refusalOf(verdict) ?? (await this.answerOf(proof.token, how));
      if (refusal) return refusal;
    }
    if (this.delivery.queued) return null;
    const verdict =
      how === "peek" ? await this.relayCeiling.peek("all") : (await this.relayCeiling.take("all")).verdict;
    return verdict === "allowed" ? null : "rate-limited-relay-ceiling";
  }

  /** One of the question's few correct answers (a render's visitors share them): whether one is left, or taking it. */
  private async answerOf(token: string, how: "peek" | "spend"): Promise<PlainCode | null> {
    const verdict = how === "peek" ? await this.questions.answerLeft(token) : await this.questions.spendAnswer(token);
    if (verdict === "correct") return null;
    return verdict === "unavailable" ? "question-store-unavailable" : "question-expired";
  }

  /** Null when the proof holds. Only a captcha costs a call, on its sender's rate (CaptchaVerifier). */
  private async verify({ proof, remoteIp, address, network }: Candidate, deadline: number): Promise<PlainCode | null> {
    if (proof.kind === "question") {
      const verdict = this.questions.check(proof.token, proof.answer);
      if (verdict === "correct") return null;
      return verdict === "wrong" ? "question-wrong" : "question-expired";
    }
    if (!this.captcha) return null;
    const answer = await this.captcha.verify(proof.token, remoteIp, { address, network }, deadline);
    if (answer === "valid") return null;
    if (answer === "invalid") return "captcha-rejected";
    return answer === "over rate" ? "rate-limited" : "captcha-unreachable";
  }

  /** `signupId`, the address's ledger key, is the job id and Idempotency-Key: a retry is one sign-up (decision 016). */
  private async relayOnce(candidate: Candidate, signupId: string, deadline: number): Promise<SignupOutcome> {
    const { email, proof, userAgent, ts } = candidate;
    const hcaptchaToken = proof.kind === "captcha" ? proof.token : "";
    const submission = { email, hcaptchaToken, source: this.settings.SIGNUP_SOURCE, ts, userAgent };
    return outcomeOf(await this.delivery.relay(submission, { key: signupId, timeoutMs: deadline - Date.now() }));
  }

  private answer(outcome: SignupOutcome, visit: Visit) {
    const ok = isSuccess(outcome);
    const { status, notice } = answerFor(outcome);
    this.metrics?.signup(outcome.code);
    logEvent("signup", {
      ...logFieldsOf(outcome),
      status,
      durationMs: Math.round((performance.now() - visit.startedAt) * 10) / 10,
      email: maskEmail(visit.typedEmail.trim()),
    });
    const result: SignupResult = {
      ok,
      notice,
      email: ok ? "" : visit.typedEmail,
      resetCaptcha: visit.captchaSpent || (ok && outcome.code !== "bot"),
    };
    // The old question may be spent, unless the e-mail was refused: that comes before the proof is read, so the
    // question and the answer the visitor typed still hold (sent back: a page without JavaScript renders them again).
    // The bot-trap fields are valid at once: the visitor already proved a person's pace, and pressing again soon (a
    // quick answer) must not be taken for a bot.
    if (!ok && visit.fromPage) {
      const answered = outcome.code === "invalid-email" ? this.questions.restate(visit.typedAnswer.token) : null;
      if (answered) Object.assign(result, { question: answered, answer: visit.typedAnswer.answer });
      else if (outcome.code !== "invalid-email") result.question = this.questions.ask();
      result.botTrap = this.botTrap.fields(Date.now(), { resend: true });
    }
    if (outcome.code === "form-unreadable") result.renewForm = true;
    return { status, result, outcome: outcome.code, pressed: visit.pressed };
  }
}
