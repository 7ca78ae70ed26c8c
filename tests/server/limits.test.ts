import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_SITEVERIFY_IN_FLIGHT, SITEVERIFY_BURST, SITEVERIFY_CALLS_PER_SECOND } from "~/signup/captcha.server";
import type { RunningApp } from "../harness/app-server";
import { solveQuestion } from "../harness/question-solver";
import { startNginxBalancer } from "../harness/real-servers";
import { pageTokens, postSignup, readPageFields, signUp } from "../harness/signup-client";
import { mapConcurrently } from "../harness/wait";
import { builtServerSuite, siteverifyCallsAtMost, withCaptcha } from "./suite";

/**
 * Limits that fit real networks, against the built server: a carrier-NAT
 * address signs up freely, an address is limited by the rate of siteverify
 * calls it causes, siteverify keeps a bounded share of the instance, and an
 * e-mail address is relayed once a day.
 */

const { standIn, start, visitor } = builtServerSuite((standIn) => ({ ...withCaptcha(standIn), TRUST_PROXY: "1" }));

const SUCCESS = "Cadastro realizado!";
const form = (email: string, hcaptchaToken: string) => ({ ...visitor(), email, hcaptchaToken });
const send = (app: RunningApp, email: string, hcaptchaToken: string, client: string) =>
  signUp(app.origin, form(email, hcaptchaToken), { client });

describe("limit the siteverify calls an address causes, not its people", () => {
  /** What one address may cause at once: a second's rate and the burst. */
  const AT_ONCE = SITEVERIFY_CALLS_PER_SECOND + SITEVERIFY_BURST.points;

  it(`${AT_ONCE} genuine sign-ups at once from one IPv4 address (a carrier NAT) are all relayed`, async () => {
    const app = await start();
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, index) =>
        send(app, `vizinho${index}@exemplo.com.br`, `P1_nat${index}`, "177.10.0.1"),
      ),
    );
    expect(answers.map(({ status }) => status)).toEqual(Array(AT_ONCE).fill(200));
    expect(new Set(standIn.relayedEmails()).size).toBe(AT_ONCE);
  });

  it("200 forged tokens from one address, 40 at a time, cost at most the rate and burst in siteverify calls", async () => {
    const app = await start();
    standIn.siteverify = { success: false };
    const began = Date.now();
    const answers = await mapConcurrently(
      Array.from({ length: 200 }, (_, index) => index),
      40,
      (index) => send(app, `bot${index}@exemplo.com`, `forged-${index}`, "203.0.113.9"),
    );
    const allowed = siteverifyCallsAtMost(Date.now() - began);
    expect(standIn.received.siteverify.length).toBeGreaterThanOrEqual(AT_ONCE);
    expect(standIn.received.siteverify.length).toBeLessThanOrEqual(allowed);
    expect(answers.filter(({ status }) => status === 429).length).toBeGreaterThanOrEqual(200 - allowed);
    expect(answers.find(({ status }) => status === 429)!.result.notice.title).toBe("Muitas tentativas");
    // A person behind another address is not touched by any of it.
    standIn.siteverify = { success: true };
    expect((await send(app, "pessoa@exemplo.com.br", "P1_pessoa", "203.0.113.10")).status).toBe(200);
    expect(standIn.relayedEmails()).toEqual(["pessoa@exemplo.com.br"]);
  });

  it("a forged flood from 300 addresses holds siteverify calls in flight at the cap, and a genuine visitor gets a turn before it", async () => {
    const app = await start();
    const flooders = Array.from({ length: 300 }, (_, sender) => `198.18.${sender >> 8}.${sender & 255}`);
    // A call each already: a freed turn goes to the address that has made the fewest calls this second, then to
    // the newest arrival, so the visitor ranks before every flooder.
    standIn.siteverify = { success: false };
    await Promise.all(
      flooders.map((client, sender) => send(app, `bot${sender}@exemplo.com`, `forged-${sender}`, client)),
    );
    standIn.reset();

    // Siteverify keeps its answers until the test lets them go, each flooder's only once its post has been
    // answered: only an answer frees a turn, so every call beyond the first turns waits for one.
    standIn.siteverify = { success: true, genuinePrefix: "genuine-", hold: true };
    const answers = new Map(
      flooders.map((client, sender) => {
        const token = `forged-second-${sender}`;
        return [token, send(app, `bot${sender}@exemplo.com`, token, client)];
      }),
    );
    await standIn.arrived("siteverify", MAX_SITEVERIFY_IN_FLIGHT);
    const person = send(app, "pessoa@exemplo.com.br", "genuine-1", "203.0.113.50");
    const personAsked = () => standIn.received.siteverify.some(({ form }) => form.response === "genuine-1");
    for (let released = 0; !personAsked(); released += 1) {
      await standIn.arrived("siteverify", released + 1);
      const [token] = standIn.releaseSiteverify(1);
      await answers.get(token!);
    }
    // The visitor is answered while every other turn is still held.
    standIn.releaseSiteverify("genuine-1");
    const answer = await person;
    standIn.siteverify = { success: true, genuinePrefix: "genuine-" };
    standIn.releaseSiteverify();
    expect(answer.status).toBe(200);
    expect(answer.result.notice.title).toBe(SUCCESS);
    await Promise.all(answers.values());
    expect(standIn.relayedEmails()).toEqual(["pessoa@exemplo.com.br"]);
    expect(standIn.siteverifyPeak).toBe(MAX_SITEVERIFY_IN_FLIGHT);
  });
});

describe("one relay per address a day", () => {
  it("the same e-mail with a new captcha the same day is answered success and relayed once", async () => {
    const app = await start();
    const first = await send(app, "ana@exemplo.com.br", "P1_primeiro", "203.0.113.1");
    const second = await send(app, "ana@exemplo.com.br", "P1_segundo", "203.0.113.2");
    expect(first).toEqual({ status: 200, result: expect.objectContaining({ ok: true }) });
    // Nothing tells the second sender that the address is on the list.
    expect(second).toEqual(first);
    expect(standIn.relayedEmails()).toEqual(["ana@exemplo.com.br"]);
    expect(app.output()).toMatch(/"outcome":"known-email","status":200/);
  });
});

describe("the fallback question across a restart without Redis", () => {
  it("a question relayed before the restart cannot be replayed after it", async () => {
    const data = await mkdtemp(join(tmpdir(), "restart-"));
    // The kept secret survives the restart: the question's signature still checks out.
    const env = { SIGNUP_SECRET: "", SIGNUPS_FILE: join(data, "signups.jsonl") };
    const before = await start(env);
    const page = await pageTokens(before.origin);
    const fields = {
      ...readPageFields(page, readFileSync(join(data, "signup-secret"), "utf8").trim()),
      email: "semjs@exemplo.com.br",
      challengeToken: page.question!.token,
      challengeAnswer: String(solveQuestion(page.question!.text)),
    };
    expect((await signUp(before.origin, fields)).status).toBe(200);
    await before.stop();

    const after = await start(env);
    const replayed = await signUp(after.origin, fields);
    expect(replayed.status).toBe(400);
    expect(replayed.result.notice.title).toBe("Pergunta expirada");
    expect(replayed.result.question?.text).toMatch(/^Quanto é/);
    expect(standIn.relayedEmails()).toEqual(["semjs@exemplo.com.br"]);
  });
});

/** What a visitor without JavaScript reads on a page the balancer wrote: its words, and the way back to the form. */
async function expectBalancerPage(response: Response, status: number, title: string) {
  const html = await response.text();
  expect([response.status, response.headers.get("content-type"), response.headers.get("cache-control")]).toEqual([
    status,
    "text/html; charset=utf-8",
    "no-store",
  ]);
  expect(html).toContain(`<h1>${title}</h1>`);
  expect(html).toContain('<a href="/#cadastro">Voltar ao formulário</a>');
}

describe("the shipped nginx configuration sheds floods", () => {
  it("without JavaScript, its own 429 past the burst and its 502 with no instance answering are pages in Portuguese that lead back to the form", async () => {
    const app = await start();
    const balancer = await startNginxBalancer([app.origin]);
    try {
      const burst = await Promise.all(
        Array.from({ length: 80 }, () =>
          postSignup(balancer.origin, form("sem-js@exemplo.com.br", ""), { from: "127.0.0.4" }),
        ),
      );
      const shed = burst.find((response) => response.status === 429)!;
      await expectBalancerPage(shed, 429, "Muitas tentativas");
      await app.stop();
      await expectBalancerPage(await fetch(`${balancer.origin}/`), 502, "Serviço indisponível no momento");
    } finally {
      await balancer.stop();
    }
  });

  it("one address far over the limit gets 429 from nginx while another address signs up", async () => {
    const instances = [await start(), await start()];
    const balancer = await startNginxBalancer(instances.map((app) => app.origin));
    standIn.siteverify = { success: true, genuinePrefix: "P1_" };
    try {
      const flood = await Promise.all(
        Array.from({ length: 600 }, async (_, index) => {
          const response = await postSignup(balancer.origin, form(`bot${index}@exemplo.com`, `forged-${index}`), {
            data: true,
            from: "127.0.0.2",
          });
          return { status: response.status, text: await response.text() };
        }),
      );
      const shed = flood.filter(({ status, text }) => status === 429 && text.includes("<title>Muitas tentativas"));
      // 60 at once (the burst) and 10 a second reach the apps; the rest never do.
      expect(shed.length).toBeGreaterThan(400);
      expect(standIn.received.siteverify.length).toBeLessThan(200);

      const person = await postSignup(balancer.origin, form("pessoa@exemplo.com.br", "P1_pessoa"), {
        data: true,
        from: "127.0.0.3",
      });
      expect(person.status).toBe(200);
      expect(standIn.relayedEmails()).toEqual(["pessoa@exemplo.com.br"]);
    } finally {
      await balancer.stop();
    }
  });
});
