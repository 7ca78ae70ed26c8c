import type { HoneypotInputProps } from "remix-utils/honeypot/server";
import { FIELD, type Challenge, type SignupResult } from "~/signup-result";
import { verifyCaptcha } from "./captcha.server";
import { CHALLENGE_TTL_MS, ChallengeBook } from "./challenge.server";
import { clientAddress, clientKey } from "./client-address.server";
import { signupTimeBudgetMs, type Env } from "./env.server";
import { normalizeEmail } from "./email.server";
import { admitSignup } from "./graceful-stop.server";
import { BotTrap } from "./honeypot.server";
import { logEvent, maskEmail } from "./log.server";
import { webhookRelay, type RelayOutcome } from "./relay.server";
import { ReplayGuard } from "./replay-guard.server";
import { BodyError, readUrlEncodedForm } from "./request-body.server";
import { ANSWERS_PER_SHARED_QUESTION, perSharedRender } from "./shared-render.server";
import { answerFor, isSuccess, logFieldsOf, type SignupOutcome } from "./signup-outcomes.server";
import { SignupSink } from "./signup-sink.server";
import type { SharedState } from "./state/shared-state.server";

export type SignupSettings = Pick<
  Env,
  | "SITE_NAME"
  | "SIGNUP_SOURCE"
  | "SIGNUP_SECRET"
  | "WEBHOOK_URL"
  | "WEBHOOK_TIMEOUT_MS"
  | "SIGNUPS_FILE"
  | "HCAPTCHA_SITE_KEY"
  | "HCAPTCHA_SECRET"
  | "HCAPTCHA_VERIFY_URL"
  | "HCAPTCHA_VERIFY_TIMEOUT_MS"
  | "NOJS_CHALLENGE"
  | "SIGNUP_MIN_SUBMIT_MS"
  | "RATE_LIMIT_PER_MINUTE"
  | "RELAY_LIMIT_PER_SECOND"
  | "NOJS_RELAYS_PER_MINUTE"
  | "TRUST_PROXY"
  | "REDIS_URL"
  | "REDIS_TIMEOUT_MS"
>;

/** Per-render values the form needs: the honeypot's fields and the fallback question. */
export type FormTokens = { honeypot: HoneypotInputProps; challenge: Challenge | null };

export type SignupResponse = { status: number; result: SignupResult };

/** Real hCaptcha tokens are a few kilobytes; anything longer is not one. */
const MAX_CAPTCHA_TOKEN_LENGTH = 8192;
/** The automation gets the browser's identification, not an unbounded header. */
const MAX_USER_AGENT_LENGTH = 1024;

/** What happened to one submission once it passed the cheap checks: verified and relayed, or why not. */
type Attempt = { ok: true } | { ok: false; outcome: SignupOutcome };

/** A claim on a submission outlives the longest sign-up by this much, so a slow one is never relayed twice. */
const CLAIM_MARGIN_MS = 1_000;

/**
 * The sign-up pipeline: read the body → rate limit → bot trap → validate the
 * e-mail → require a proof (captcha token or fallback answer) → verify it →
 * spend the relay budgets → relay, at most once per submission. Scarce budgets
 * are spent only on verified submissions, so junk never locks people out.
 * Each call ends in one outcome (signup-outcomes.server.ts turns it into the
 * status and the pt-BR notice), answers the result the form shows, and logs one line.
 * Limits, budgets, question counts and the replay guard live in `state`:
 * this process's memory, or Redis shared by every instance.
 */
export function createSignup(settings: SignupSettings, state: SharedState) {
  const sink = settings.WEBHOOK_URL ? null : new SignupSink(settings.SIGNUPS_FILE);
  const relay = sink?.append ?? webhookRelay(settings.WEBHOOK_URL!, settings.WEBHOOK_TIMEOUT_MS);
  const botTrap = new BotTrap(settings.SIGNUP_SECRET, settings.SIGNUP_MIN_SUBMIT_MS);
  const challenges =
    settings.NOJS_CHALLENGE === "on"
      ? new ChallengeBook(
          settings.SIGNUP_SECRET,
          state.limit({
            name: "question-answers",
            points: ANSWERS_PER_SHARED_QUESTION,
            durationSeconds: CHALLENGE_TTL_MS / 1000,
            whenAway: "refuse",
          }),
        )
      : null;
  // While Redis is away the per-client limit and the ceiling hold per instance; the
  // question's budget must hold for the whole deployment, so its path closes instead.
  const perClient = state.limit({
    name: "client",
    points: settings.RATE_LIMIT_PER_MINUTE,
    durationSeconds: 60,
    whenAway: "local",
  });
  const relayCeiling = state.limit({
    name: "relays",
    points: settings.RELAY_LIMIT_PER_SECOND,
    durationSeconds: 1,
    whenAway: "local",
  });
  /** The fallback question is easier for a script than hCaptcha: its relays get a small budget of their own. */
  const questionRelays = state.limit({
    name: "question-relays",
    points: settings.NOJS_RELAYS_PER_MINUTE,
    durationSeconds: 60,
    whenAway: "refuse",
  });
  /** The longest a sign-up's outgoing calls can take: what a stop must still leave it. */
  const timeBudgetMs = signupTimeBudgetMs(settings);
  const replays = new ReplayGuard<Attempt>(state.ledger, {
    holdMs: timeBudgetMs + CLAIM_MARGIN_MS,
    relayed: { ok: true },
  });
  /** One set of tokens per shared render: the page and its data request hand out the same. */
  const formTokens = perSharedRender((now): FormTokens => ({
    honeypot: botTrap.inputProps(now),
    challenge: challenges?.create(now) ?? null,
  }));

  async function verifyAndRelay(submission: {
    email: string;
    captchaToken: string;
    challengeToken: string;
    challengeAnswer: string;
    remoteIp: string | null;
    userAgent: string;
    ts: string;
  }): Promise<Attempt> {
    const refuse = (code: FixedCode): Attempt => ({ ok: false, outcome: { code } });
    if (submission.captchaToken) {
      if (settings.HCAPTCHA_SECRET) {
        const verdict = await verifyCaptcha(
          {
            secret: settings.HCAPTCHA_SECRET,
            siteKey: settings.HCAPTCHA_SITE_KEY,
            verifyUrl: settings.HCAPTCHA_VERIFY_URL,
            timeoutMs: settings.HCAPTCHA_VERIFY_TIMEOUT_MS,
          },
          submission.captchaToken,
          submission.remoteIp,
        );
        if (verdict === "invalid") return refuse("captcha-rejected");
        if (verdict === "unreachable") return refuse("captcha-unreachable");
      }
    } else if (challenges) {
      const verdict = await challenges.verify(submission.challengeToken, submission.challengeAnswer);
      if (verdict === "wrong") return refuse("challenge-wrong");
      if (verdict === "expired") return refuse("challenge-expired");
      const budget = verdict === "correct" ? await questionRelays.take("all") : "unavailable";
      if (budget === "limited") return refuse("rate-limited-question-budget");
      if (budget === "unavailable") return refuse("question-store-unavailable");
    }
    if ((await relayCeiling.take("all")) !== "allowed") return refuse("rate-limited-relay-ceiling");
    const outcome = await relay({
      email: submission.email,
      hcaptchaToken: submission.captchaToken,
      source: settings.SIGNUP_SOURCE,
      ts: submission.ts,
      userAgent: submission.userAgent,
    });
    return outcome.ok ? { ok: true } : { ok: false, outcome: relayFailure(outcome) };
  }

  /** Every sign-up is counted while it runs, so a stop (SIGTERM) waits for its answer. */
  async function handle(request: Request): Promise<SignupResponse> {
    const admission: { release: (() => void) | null } = { release: null };
    try {
      return await handleOne(request, () => (admission.release = admitSignup(timeBudgetMs)) !== null);
    } finally {
      admission.release?.();
    }
  }

  /**
   * `admit` is asked once the body is read: a visitor still uploading when a
   * stop begins is not waited for (nothing of theirs was relayed, so their
   * retry is safe), and every admitted sign-up fits in the drain.
   */
  async function handleOne(request: Request, admit: () => boolean): Promise<SignupResponse> {
    const startedAt = performance.now();
    const ts = new Date().toISOString();
    let typedEmail = "";
    let cameFromThePage = false;

    const respond = (outcome: SignupOutcome, options: { resetCaptcha?: boolean } = {}): SignupResponse => {
      const ok = isSuccess(outcome);
      const { status, notice } = answerFor(outcome, settings.SITE_NAME);
      logEvent("signup", {
        ...logFieldsOf(outcome),
        status,
        durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
        email: maskEmail(typedEmail.trim()),
      });
      const result: SignupResult = {
        ok,
        notice,
        email: ok ? "" : typedEmail,
        resetCaptcha: options.resetCaptcha ?? false,
      };
      // After a failed post from the page the fallback question is replaced (the old one
      // may be spent), and the bot-trap fields are renewed, valid at once: the visitor
      // already proved a person's pace, and pressing again within the minimum time (a
      // quick answer to the new question) must not be taken for a bot.
      if (!ok && cameFromThePage) {
        if (challenges) result.challenge = challenges.create();
        result.honeypot = botTrap.inputProps(Date.now(), { resend: true });
      }
      return { status, result };
    };

    if (request.method !== "POST") {
      return respond({ code: "unreadable", status: 405, detail: `method ${request.method}` });
    }
    let form: FormData;
    try {
      form = await readUrlEncodedForm(request, Object.values(FIELD));
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      return respond({ code: "unreadable", status: error.status, detail: error.message });
    }
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value : "";
    };
    // Echo what was typed (bounded: the field is capped at 254 characters anyway).
    typedEmail = field(FIELD.email).slice(0, 512);
    // A stop is under way and this one could not finish before it: another instance, or this one restarted, will.
    if (!admit()) return respond({ code: "stopping" });

    const remoteIp = clientAddress(request.headers, settings.TRUST_PROXY);
    if ((await perClient.take(clientKey(remoteIp))) !== "allowed") return respond({ code: "rate-limited" });

    const trap = botTrap.inspect(form);
    // Only a post carrying the page's own fields earns a fresh question: junk never farms them.
    cameFromThePage = trap.kind !== "bot";
    if (trap.kind === "bot") return respond({ code: "bot", detail: trap.why });
    if (trap.kind === "stale") return respond({ code: "form-expired", detail: trap.why });

    // One spelling per address (NFC, domain in lower case): what is relayed and de-duplicated.
    const email = normalizeEmail(typedEmail);
    if (email === null) return respond({ code: "invalid-email" });

    const captchaToken = field(FIELD.captchaToken).trim();
    const challengeAnswer = field(FIELD.challengeAnswer);
    // An unanswered question is no proof at all, like an unsolved captcha.
    const challengeToken = challenges && challengeAnswer.trim() ? field(FIELD.challengeToken).trim() : "";
    const proof = captchaToken ? `captcha:${captchaToken}` : challengeToken ? `challenge:${challengeToken}` : "";
    if (!proof || captchaToken.length > MAX_CAPTCHA_TOKEN_LENGTH) {
      // Without JavaScript the page showed the question, not a captcha: say what to do there.
      const questionShown = !captchaToken && challenges !== null && form.has(FIELD.challengeToken);
      return respond({ code: questionShown ? "challenge-missing" : "captcha-missing" });
    }

    const once = await replays.once(ReplayGuard.keyOf(email, proof), () =>
      verifyAndRelay({
        email,
        captchaToken,
        challengeToken,
        challengeAnswer,
        remoteIp,
        userAgent: (request.headers.get("user-agent") ?? "").slice(0, MAX_USER_AGENT_LENGTH),
        ts,
      }),
    );
    // Nothing was verified or relayed here: the visitor's proof is still good for a retry.
    if (once.kind === "unavailable") return respond({ code: "store-unavailable", detail: once.why });
    const { outcome, duplicate } = once;
    if (outcome.ok) return respond({ code: duplicate ? "replay" : "relayed" }, { resetCaptcha: true });
    return respond(outcome.outcome, { resetCaptcha: Boolean(captchaToken) });
  }

  /** Whether sign-ups can be taken now: a webhook is not probed, the local file is. */
  const healthy = async (): Promise<boolean> => (sink ? sink.healthy() : true);

  return { handle, formTokens, healthy, sharedStateReady: state.ready };
}

type FixedCode = Exclude<SignupOutcome, { detail: string } | { reason: string } | { status: number }>["code"];

function relayFailure(outcome: Exclude<RelayOutcome, { ok: true }>): SignupOutcome {
  if (outcome.kind === "status") {
    return { code: "webhook-status", status: outcome.status, statusText: outcome.statusText, text: outcome.text };
  }
  return { code: outcome.kind === "sink" ? "sink-failed" : "webhook-unreachable", reason: outcome.reason };
}
