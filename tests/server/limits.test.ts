import { describe, expect, it } from "vitest";
import { MAX_SITEVERIFY_IN_FLIGHT } from "~/signup/captcha.server";
import type { RunningApp } from "../harness/app-server";
import { postSignup, signUp } from "../harness/signup-client";
import { builtServerSuite, expectBalancerPage, filledForm } from "./suite";

/**
 * Limits against the built server: siteverify keeps a bounded share of the instance however many addresses flood
 * it, and the shipped nginx sheds one address's flood before it reaches the apps. The per-address rate, junk, the
 * one relay a day and the question across a restart are the pipeline's rules: unit/pipeline.
 */

const { standIn, start, startBalancer } = builtServerSuite((standIn) => ({
  ...standIn.captchaSettings,
  TRUST_PROXY: "1",
}));

const SUCCESS = "Cadastro realizado!";
const send = (app: RunningApp, email: string, hcaptchaToken: string, client: string) =>
  signUp(app.origin, filledForm(email, hcaptchaToken), { client });

describe("siteverify keeps a bounded share of the instance", () => {
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

describe("the shipped nginx configuration sheds floods", () => {
  it("one address far over the limit gets its 429 page while another address signs up; with no instance answering, its 502 page", async () => {
    const instances = [await start(), await start()];
    const balancer = await startBalancer(instances.map((app) => app.origin));
    standIn.siteverify = { success: true, genuinePrefix: "P1_" };
    const flood = await Promise.all(
      Array.from({ length: 600 }, (_, index) =>
        postSignup(balancer.origin, filledForm(`bot${index}@exemplo.com`, `forged-${index}`), { from: "127.0.0.2" }),
      ),
    );
    const [shed, ...moreShed] = flood.filter((response) => response.status === 429);
    // 60 at once (the burst) and 10 a second reach the apps; the rest never do.
    expect(moreShed.length).toBeGreaterThan(400);
    expect(standIn.received.siteverify.length).toBeLessThan(200);
    await Promise.all(flood.filter((response) => response !== shed).map((response) => response.body?.cancel()));
    await expectBalancerPage(shed!, 429, "Muitas tentativas");

    const person = await postSignup(balancer.origin, filledForm("pessoa@exemplo.com.br"), {
      data: true,
      from: "127.0.0.3",
    });
    expect(person.status).toBe(200);
    expect(standIn.relayedEmails()).toEqual(["pessoa@exemplo.com.br"]);
    await Promise.all(instances.map((app) => app.stop()));
    await expectBalancerPage(fetch(`${balancer.origin}/`), 502, "Serviço indisponível no momento");
  });
});
