import { describe, expect, it } from "vitest";
import type { RunningApp } from "../harness/app-server";
import { solveQuestion } from "../harness/question-solver";
import { pageTokens, postSignup, signUp, type FormTokens } from "../harness/signup-client";
import { QUESTION_RELAYS_PER_ADDRESS, QUESTION_RELAYS_PER_MINUTE } from "~/signup/question.server";
import { startRedis } from "../harness/real-servers";
import { builtServerSuite, withCaptcha } from "./suite";

/**
 * A bot author's attempts against the built server, each judged by what the
 * webhook received and what a genuine visitor got. hCaptcha is on (siteverify
 * stand-in); the fallback question is the cheap way in a bot will try. Forged
 * tokens, junk and a bad neighbour at a visitor's address are the pipeline's
 * rules (unit/pipeline, on a clock the test moves); over instances sharing
 * Redis, cluster.test.ts.
 */

const { standIn, start, serverForAll, visitor } = builtServerSuite(withCaptcha);

/** What a scraper reads off the page: the question (the bot-trap fields are a visitor's who waited). */
const scrape = (app: RunningApp) => pageTokens(app.origin);

const send = (app: RunningApp, fields: Record<string, string>, client: string) =>
  signUp(app.origin, { ...visitor(), ...fields }, { client });

/** Answers the page's question for `email`: rightly, unless told what to answer or which token to send. */
function answerQuestion(
  app: RunningApp,
  tokens: FormTokens,
  email: string,
  { token = tokens.question!.token, answer = String(solveQuestion(tokens.question!.text)), client = "" } = {},
) {
  return send(app, { email, challengeToken: token, challengeAnswer: answer }, client);
}

const relayed = () => standIn.relayedEmails();

describe("the fallback question has a small budget of its own", () => {
  /** Relays `email` through the question, taking the new question it is handed when the page's is spent. */
  async function relayThroughQuestion(app: RunningApp, email: string, client: string) {
    let tokens = await scrape(app);
    for (;;) {
      const answer = await answerQuestion(app, tokens, email, { client });
      if (answer.result.notice.title !== "Pergunta expirada") return answer;
      tokens = { ...tokens, question: answer.result.question! };
    }
  }

  /** A question nobody answered yet: the one a post without a proof (nothing counted) is handed back. */
  async function freshQuestion(app: RunningApp, client: string) {
    return (await send(app, { email: "sem-prova@exemplo.com" }, client)).result.question!;
  }

  /** Spends the minute's budget: as many addresses as it allows (`{tag}0@…`, `{tag}1@…`), each relayed from its own. */
  async function spendBudget(app: RunningApp, tag: string) {
    for (let index = 0; index < QUESTION_RELAYS_PER_MINUTE; index++) {
      expect((await relayThroughQuestion(app, `${tag}${index}@exemplo.com`, `203.0.113.${index}`)).status).toBe(200);
    }
  }

  it(`a scripted solver relays at most ${QUESTION_RELAYS_PER_MINUTE} a minute; the rest are told to wait or use the captcha, and hCaptcha visitors are unaffected`, async () => {
    const app = await start({ TRUST_PROXY: "1" });
    let tokens = await scrape(app);
    const answers: Array<{ status: number; title: string }> = [];
    for (let attempt = 0; attempt < 32; attempt++) {
      const { status, result } = await answerQuestion(app, tokens, `alvo${attempt}@exemplo.com`, {
        client: `198.51.100.${attempt}`,
      });
      answers.push({ status, title: result.notice.title });
      // A solver takes every new question it is handed.
      if (result.question) tokens = { ...tokens, question: result.question };
    }

    expect(relayed()).toHaveLength(QUESTION_RELAYS_PER_MINUTE);
    const relayedAnswer = { status: 200, title: "Cadastro realizado!" };
    const spentQuestion = { status: 400, title: "Pergunta expirada" };
    const budgetSpent = { status: 429, title: "Muitos cadastros sem captcha" };
    // Each question takes three correct answers, and the fourth is handed a new one, until the budget is spent.
    const perQuestion = [relayedAnswer, relayedAnswer, relayedAnswer, spentQuestion];
    expect(answers).toEqual([
      ...Array<typeof perQuestion>(6).fill(perQuestion).flat(),
      relayedAnswer,
      relayedAnswer,
      // A refusal hands out a new question, which the solver takes.
      ...Array(6).fill(budgetSpent),
    ]);
    const { result } = await send(app, { email: "pessoa@exemplo.com.br", hcaptchaToken: "t-1" }, "203.0.113.50");
    expect(result.notice.title).toBe("Cadastro realizado!");
    expect(relayed()).toContain("pessoa@exemplo.com.br");
  });

  it(`a script at one address gets ${QUESTION_RELAYS_PER_ADDRESS.perMinute} of them a minute over every instance on one Redis: a visitor at another address still signs up through the question`, async () => {
    const redis = await startRedis();
    try {
      const env = { TRUST_PROXY: "1", REDIS_URL: redis.url };
      const instances = [await start(env), await start(env)];
      const script: Array<[number, string]> = [];
      for (let index = 0; index < QUESTION_RELAYS_PER_MINUTE; index++) {
        const instance = instances[index % 2]!;
        const { status, result } = await relayThroughQuestion(instance, `roteiro${index}@exemplo.com`, "177.10.0.9");
        script.push([status, result.notice.title]);
      }
      const person = await relayThroughQuestion(instances[0]!, "sem-js@exemplo.com.br", "203.0.113.50");

      const { perMinute } = QUESTION_RELAYS_PER_ADDRESS;
      expect(script).toEqual([
        ...Array(perMinute).fill([200, "Cadastro realizado!"]),
        ...Array(QUESTION_RELAYS_PER_MINUTE - perMinute).fill([429, "Muitos cadastros sem captcha"]),
      ]);
      expect([person.status, person.result.notice.title]).toEqual([200, "Cadastro realizado!"]);
      expect(relayed()).toContain("sem-js@exemplo.com.br");
      expect(relayed()).toHaveLength(perMinute + 1);
    } finally {
      await redis.stop();
    }
  });

  it("four addresses answering three questions each for one listed address do not close the question: a visitor without JavaScript at a fifth signs up", async () => {
    const app = await start({ TRUST_PROXY: "1" });
    const script: number[] = [];
    for (let address = 1; address <= 4; address++)
      for (let question = 0; question < 3; question++) {
        const client = `198.51.100.${address}`;
        const tokens = { ...(await scrape(app)), question: await freshQuestion(app, client) };
        script.push((await answerQuestion(app, tokens, "sempre-a-mesma@exemplo.com", { client })).status);
      }
    // Answers that relay nothing new spend no share and no budget: one relay in all.
    expect(script).toEqual(Array(12).fill(200));
    const tokens = await scrape(app);
    const page = await postSignup(
      app.origin,
      {
        ...visitor(),
        email: "sem-js@exemplo.com.br",
        challengeToken: tokens.question.token,
        challengeAnswer: String(solveQuestion(tokens.question.text)),
      },
      { client: "203.0.113.5" },
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Cadastro realizado!");
    expect(relayed()).toEqual(["sempre-a-mesma@exemplo.com", "sem-js@exemplo.com.br"]);
  });

  it("once the budget is spent, an address already on the list is refused like a new one: the answer tells nobody who is listed", async () => {
    const app = await start({ TRUST_PROXY: "1" });
    await spendBudget(app, "lista");
    /** A question nobody answered yet (the page's may be the one lista0 was relayed with: a replay). */
    const probe = async (email: string, client: string) =>
      answerQuestion(app, { ...(await scrape(app)), question: await freshQuestion(app, client) }, email, { client });
    const listed = await probe("lista0@exemplo.com", "203.0.113.60");
    const unknown = await probe("ninguem@exemplo.com", "203.0.113.61");
    expect([listed.status, listed.result.notice.title]).toEqual([429, "Muitos cadastros sem captcha"]);
    expect([unknown.status, unknown.result.notice.title]).toEqual([429, "Muitos cadastros sem captcha"]);
    expect(relayed()).toHaveLength(QUESTION_RELAYS_PER_MINUTE);
  });

  it("a no-JavaScript visitor refused by the budget is told, in Portuguese, to wait or turn JavaScript on", async () => {
    const app = await start({ TRUST_PROXY: "1" });
    await spendBudget(app, "antes");
    const question = await freshQuestion(app, "203.0.113.98");
    const refused = await postSignup(
      app.origin,
      {
        ...visitor(),
        email: "dois@exemplo.com",
        challengeToken: question.token,
        challengeAnswer: String(solveQuestion(question.text)),
      },
      { client: "203.0.113.99" },
    );
    expect(refused.status).toBe(429);
    const html = await refused.text();
    expect(html).toContain(
      "Recebemos muitos cadastros pela pergunta de verificação agora. Tente de novo em alguns minutos, ou ative o JavaScript para usar o captcha.",
    );
    expect(html).toContain('value="dois@exemplo.com"');
  });
});

describe("questions are expensive to farm", () => {
  const farmed = serverForAll(() => ({ TRUST_PROXY: "1" }));

  it("only a post carrying the page's fields earns a new question", async () => {
    const app = farmed();
    const plain = await fetch(`${app.origin}/?index&_data=routes%2F_index`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "email=ana@exemplo.com",
    });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { question?: unknown }).question).toBeUndefined();
    const noFields = await signUp(
      app.origin,
      { email: "ana@exemplo.com", challengeToken: "x", challengeAnswer: "1" },
      { client: "198.51.100.61" },
    );
    expect(noFields.result.question).toBeUndefined();
    const fromPage = await send(app, { email: "ana@exemplo.com" }, "198.51.100.61");
    expect(fromPage.status).toBe(400);
    expect(fromPage.result.question?.text).toMatch(/^Quanto é /);
  });

  it("wrong answers do not burn the question everybody of that second shares", async () => {
    const app = farmed();
    const tokens = await scrape(app);
    const wrongAnswer = String(solveQuestion(tokens.question!.text) + 1);
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = await answerQuestion(app, tokens, `bot${attempt}@exemplo.com`, {
        answer: wrongAnswer,
        client: "198.51.100.62",
      });
      expect(wrong.result.notice.title).toBe("Resposta incorreta");
    }
    const person = await answerQuestion(app, tokens, "pessoa@exemplo.com.br", { client: "198.51.100.63" });
    expect(person.status).toBe(200);
    expect(relayed()).toEqual(["pessoa@exemplo.com.br"]);
  });

  it("other spellings of a token's expiry are refused: one question relays one address once", async () => {
    const app = farmed();
    const tokens = await scrape(app);
    const [id, expiry, mac] = tokens.question!.token.split(".") as [string, string, string];
    const post = (token: string) =>
      answerQuestion(app, tokens, "ana@exemplo.com.br", { token, client: "198.51.100.64" });
    for (const spelling of [`0${expiry}`, `+${expiry}`, `${expiry}e0`, `${expiry}.0`, ` ${expiry}`]) {
      const { status, result } = await post(`${id}.${spelling}.${mac}`);
      expect(status).toBe(400);
      expect(result.notice.title).toBe("Pergunta expirada");
    }
    expect((await post(tokens.question!.token)).status).toBe(200);
    expect((await post(tokens.question!.token)).status).toBe(200); // the replay answers success again, without relaying
    expect(relayed()).toEqual(["ana@exemplo.com.br"]);
  });
});

describe("tracking parameters cost nothing", () => {
  const app = serverForAll();

  it("campaign links get the shared render, with no click id in it", async () => {
    const etags = new Set<string>();
    for (const query of [
      "",
      "?fbclid=IwAR1abc",
      "?gclid=Cj0KCQ",
      "?utm_source=newsletter&utm_campaign=lancamento",
      "?fbclid=IwAR2xyz",
    ]) {
      const response = await fetch(`${app().origin}/${query}`);
      expect(response.status).toBe(200);
      etags.add(response.headers.get("etag")!);
      const html = await response.text();
      // Neither a parameter of the request nor its value (the boot names the utm_* it reads, never their values).
      expect(html).not.toMatch(/(fbclid|gclid|utm_\w+)=|IwAR|Cj0KCQ|newsletter/);
      expect(html).toContain('action="/?index"');
    }
    // One render shared by all five (two if the one-second render expired in between).
    expect(etags.size).toBeLessThanOrEqual(2);
  });
});
