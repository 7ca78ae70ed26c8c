import type { HoneypotInputProps } from "remix-utils/honeypot/server";
import { content } from "~/content";
import { FIELD, type Challenge, type Notice, type SignupResult } from "~/signup-result";
import { verifyCaptcha } from "./captcha.server";
import { ChallengeBook } from "./challenge.server";
import { clientAddress, clientKey } from "./client-address.server";
import type { Env } from "./env.server";
import { normalizeEmail } from "./email.server";
import { admitSignup } from "./graceful-stop.server";
import { BotTrap } from "./honeypot.server";
import { logEvent, maskEmail } from "./log.server";
import { RateLimiter } from "./rate-limit.server";
import { webhookRelay, type RelayOutcome } from "./relay.server";
import { ReplayGuard } from "./replay-guard.server";
import { BodyError, readUrlEncodedForm } from "./request-body.server";
import { SignupSink } from "./signup-sink.server";

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
>;

/** Per-render values the form needs: the honeypot's fields and the fallback question. */
export type FormTokens = { honeypot: HoneypotInputProps; challenge: Challenge | null };

export type SignupResponse = { status: number; result: SignupResult };

/** Real hCaptcha tokens are a few kilobytes; anything longer is not one. */
const MAX_CAPTCHA_TOKEN_LENGTH = 8192;
/** How long one set of form tokens is handed out: the page cache shares a render this long. */
const FORM_TOKENS_TTL_MS = 1000;
/** The automation gets the browser's identification, not an unbounded header. */
const MAX_USER_AGENT_LENGTH = 1024;

/** What happened to one submission once it passed the cheap checks: verified and relayed, or why not. */
type Attempt = { ok: true } | { ok: false; status: number; notice: Notice; log: string };

/**
 * The sign-up pipeline: read the body → rate limit → bot trap → validate the
 * e-mail → require a proof (captcha token or fallback answer) → verify it →
 * spend the relay budgets → relay, at most once per submission. Scarce budgets
 * are spent only on verified submissions, so junk never locks people out.
 * Each call answers a status and the result the form shows, and logs one line.
 */
export function createSignup(settings: SignupSettings) {
  const sink = settings.WEBHOOK_URL ? null : new SignupSink(settings.SIGNUPS_FILE);
  const relay = sink?.append ?? webhookRelay(settings.WEBHOOK_URL!, settings.WEBHOOK_TIMEOUT_MS);
  const botTrap = new BotTrap(settings.SIGNUP_SECRET, settings.SIGNUP_MIN_SUBMIT_MS);
  const challenges = settings.NOJS_CHALLENGE === "on" ? new ChallengeBook(settings.SIGNUP_SECRET) : null;
  const perClient = new RateLimiter(settings.RATE_LIMIT_PER_MINUTE, 60_000);
  const relayCeiling = new RateLimiter(settings.RELAY_LIMIT_PER_SECOND, 1000);
  /** The fallback question is easier for a script than hCaptcha: its relays get a small budget of their own. */
  const questionRelays = new RateLimiter(settings.NOJS_RELAYS_PER_MINUTE, 60_000);
  const replays = new ReplayGuard<Attempt>();
  const success = content.messages.success(settings.SITE_NAME);
  let tokens: { value: FormTokens; until: number } | null = null;

  function formTokens(now = Date.now()): FormTokens {
    if (!tokens || now >= tokens.until) {
      tokens = {
        value: { honeypot: botTrap.inputProps(now), challenge: challenges?.create(now) ?? null },
        until: now + FORM_TOKENS_TTL_MS,
      };
    }
    return tokens.value;
  }

  async function verifyAndRelay(submission: {
    email: string;
    captchaToken: string;
    challengeToken: string;
    challengeAnswer: string;
    remoteIp: string | null;
    userAgent: string;
    ts: string;
  }): Promise<Attempt> {
    const { messages } = content;
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
        if (verdict === "invalid") return { ok: false, status: 400, notice: messages.captchaMissing, log: "captcha-rejected" };
        if (verdict === "unreachable") {
          return { ok: false, status: 502, notice: failure(messages.failureFallback), log: "captcha-unreachable" };
        }
      }
    } else if (challenges) {
      const verdict = challenges.verify(submission.challengeToken, submission.challengeAnswer);
      if (verdict === "wrong") {
        return { ok: false, status: 400, notice: messages.challengeWrong, log: "challenge-wrong" };
      }
      if (verdict === "expired") {
        return { ok: false, status: 400, notice: messages.challengeExpired, log: "challenge-expired" };
      }
      if (!questionRelays.take("all")) {
        return { ok: false, status: 429, notice: messages.questionBudgetSpent, log: "rate-limited-question-budget" };
      }
    }
    if (!relayCeiling.take("all")) {
      return { ok: false, status: 429, notice: messages.tooMany, log: "rate-limited-relay-ceiling" };
    }
    const outcome = await relay({
      email: submission.email,
      hcaptchaToken: submission.captchaToken,
      source: settings.SIGNUP_SOURCE,
      ts: submission.ts,
      userAgent: submission.userAgent,
    });
    return outcome.ok ? { ok: true } : relayFailure(outcome);
  }

  /** The longest a sign-up's outgoing calls can take: what a stop must still leave it. */
  const timeBudgetMs =
    (settings.HCAPTCHA_SECRET ? settings.HCAPTCHA_VERIFY_TIMEOUT_MS : 0) +
    (settings.WEBHOOK_URL ? settings.WEBHOOK_TIMEOUT_MS : 0);

  /** Every sign-up is counted while it runs, so a stop (SIGTERM) waits for its answer. */
  async function handle(request: Request): Promise<SignupResponse> {
    const release = admitSignup(timeBudgetMs);
    try {
      return await handleAdmitted(request, release !== null);
    } finally {
      release?.();
    }
  }

  async function handleAdmitted(request: Request, admitted: boolean): Promise<SignupResponse> {
    const startedAt = performance.now();
    const ts = new Date().toISOString();
    const { messages } = content;
    let typedEmail = "";
    let cameFromThePage = false;

    const respond = (
      status: number,
      notice: Notice,
      log: { outcome: string; detail?: string },
      options: { ok?: boolean; resetCaptcha?: boolean; freshHoneypot?: boolean } = {},
    ): SignupResponse => {
      const ok = options.ok ?? false;
      logEvent("signup", {
        outcome: log.outcome,
        detail: log.detail,
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
      // may be spent), and a form found too old gets fresh bot-trap fields, so the
      // visitor only has to press again.
      if (!ok && challenges && cameFromThePage) result.challenge = challenges.create();
      if (options.freshHoneypot) result.honeypot = botTrap.inputProps(Date.now(), { resend: true });
      return { status, result };
    };

    if (request.method !== "POST") {
      return respond(405, messages.unreadable, { outcome: "unreadable", detail: `method ${request.method}` });
    }
    let form: FormData;
    try {
      form = await readUrlEncodedForm(request, Object.values(FIELD));
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      return respond(error.status, messages.unreadable, { outcome: "unreadable", detail: error.message });
    }
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value : "";
    };
    // Echo what was typed (bounded: the field is capped at 254 characters anyway).
    typedEmail = field(FIELD.email).slice(0, 512);
    if (!admitted) {
      // A stop is under way and this one could not finish before it: another instance, or this one restarted, will.
      return respond(503, messages.restarting, { outcome: "stopping" });
    }

    const remoteIp = clientAddress(request.headers, settings.TRUST_PROXY);
    if (!perClient.take(clientKey(remoteIp))) {
      return respond(429, messages.tooMany, { outcome: "rate-limited", detail: "client" });
    }

    const trap = botTrap.inspect(form);
    // Only a post carrying the page's own fields earns a fresh question: junk never farms them.
    cameFromThePage = trap.kind !== "bot";
    if (trap.kind === "bot") {
      // Looks like success to the bot, so it learns nothing; nothing is relayed.
      return respond(200, success, { outcome: "bot", detail: trap.why }, { ok: true });
    }
    if (trap.kind === "stale") {
      return respond(400, messages.formExpired, { outcome: "form-expired", detail: trap.why }, { freshHoneypot: true });
    }

    // One spelling per address (NFC, domain in lower case): what is relayed and de-duplicated.
    const email = normalizeEmail(typedEmail);
    if (email === null) return respond(400, messages.invalidEmail, { outcome: "invalid-email" });

    const captchaToken = field(FIELD.captchaToken).trim();
    const challengeAnswer = field(FIELD.challengeAnswer);
    // An unanswered question is no proof at all, like an unsolved captcha.
    const challengeToken = challenges && challengeAnswer.trim() ? field(FIELD.challengeToken).trim() : "";
    const proof = captchaToken ? `captcha:${captchaToken}` : challengeToken ? `challenge:${challengeToken}` : "";
    if (!proof || captchaToken.length > MAX_CAPTCHA_TOKEN_LENGTH) {
      // Without JavaScript the page showed the question, not a captcha: say what to do there.
      const questionShown = !captchaToken && challenges !== null && form.has(FIELD.challengeToken);
      return respond(400, questionShown ? messages.challengeMissing : messages.captchaMissing, {
        outcome: "captcha-missing",
      });
    }

    const replayKey = ReplayGuard.keyOf(email, proof);
    if (replays.wasRelayed(replayKey)) {
      return respond(200, success, { outcome: "replay" }, { ok: true, resetCaptcha: true });
    }

    const { outcome, duplicate } = await replays.once(replayKey, () =>
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
    if (outcome.ok) {
      return respond(200, success, { outcome: duplicate ? "replay" : "relayed" }, { ok: true, resetCaptcha: true });
    }
    return respond(outcome.status, outcome.notice, { outcome: outcome.log }, { resetCaptcha: Boolean(captchaToken) });
  }

  /** Whether sign-ups can be taken now: a webhook is not probed, the local file is. */
  const healthy = async (): Promise<boolean> => (sink ? sink.healthy() : true);

  return { handle, formTokens, healthy };
}

function failure(description: string): Notice {
  return { title: content.messages.failureTitle, description };
}

function relayFailure(outcome: Exclude<RelayOutcome, { ok: true }>): Attempt {
  const { messages } = content;
  if (outcome.kind === "status") {
    return {
      ok: false,
      status: 502,
      notice: failure(messages.webhookStatus(outcome.status, outcome.statusText, outcome.text)),
      log: `webhook-status-${outcome.status}`,
    };
  }
  const where = outcome.kind === "sink" ? "sink-failed" : "webhook-unreachable";
  return { ok: false, status: 502, notice: failure(messages.failureFallback), log: `${where}-${outcome.reason}` };
}
