import { describe, expect, it } from "vitest";
import type { RunningApp } from "../harness/app-server";
import { solveQuestion } from "../harness/question-solver";
import { pageTokens, postSignup, signUp } from "../harness/signup-client";
import type { Question } from "~/signup/result";
import { QUESTION_RELAYS_PER_MINUTE } from "~/signup/question.server";
import { builtServerSuite, withCaptcha } from "./suite";

/**
 * A bot author's attempts against the built server, each judged by what the
 * webhook received and what a genuine visitor got. hCaptcha is on (siteverify
 * stand-in); the fallback question is the cheap way in a bot will try. Forged
 * tokens, junk, a bad neighbour at a visitor's address and the question's
 * shares and budget are the pipeline's rules (unit/pipeline, on a clock the
 * test moves); over instances sharing Redis, cluster.test.ts.
 */

const { start, serverForAll, visitor } = builtServerSuite(withCaptcha);

const send = (app: RunningApp, fields: Record<string, string>, client: string) =>
  signUp(app.origin, { ...visitor(), ...fields }, { client });

/** The form of a visitor who answered `question` rightly for `email`. */
const answering = (question: Question, email: string) => ({
  ...visitor(),
  email,
  challengeToken: question.token,
  challengeAnswer: String(solveQuestion(question.text)),
});

describe("the fallback question's budget, spent", () => {
  it("a no-JavaScript visitor refused by the budget is told, in Portuguese, to wait or turn JavaScript on", async () => {
    const app = await start({ TRUST_PROXY: "1" });
    let { question } = await pageTokens(app.origin);
    // The minute's budget, spent from an address each, taking the new question handed back when one is spent.
    for (let index = 0; index < QUESTION_RELAYS_PER_MINUTE; index++) {
      for (;;) {
        const client = `203.0.113.${index}`;
        const { status, result } = await signUp(app.origin, answering(question, `antes${index}@exemplo.com`), {
          client,
        });
        if (status === 200) break;
        question = result.question!;
      }
    }
    const refused = await postSignup(app.origin, answering(question, "dois@exemplo.com"), { client: "203.0.113.99" });
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
