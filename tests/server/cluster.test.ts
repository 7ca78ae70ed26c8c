import { describe, expect, it } from "vitest";
import { freePort } from "../harness/app-server";
import { solveQuestion } from "../harness/question-solver";
import { startRedis } from "../harness/real-servers";
import { pageTokens, signUp } from "../harness/signup-client";
import { answers, until, waitForOk } from "../harness/wait";
import { QUESTION_RELAYS_PER_MINUTE } from "~/signup/question.server";
import { builtServerSuite, filledForm, redisPerFile } from "./suite";

/**
 * Several instances of the built server sharing a real redis-server act as
 * one: each sign-up is relayed once whichever instance it reaches, limits and
 * budgets hold for the deployment, and a Redis outage costs visitors a clear
 * answer, never a crash or a second relay.
 */

const redis = redisPerFile();

const { standIn, start, serverForAll, visitor } = builtServerSuite((standIn) => ({
  ...standIn.captchaSettings,
  // The relay ceiling has a test of its own; here it would only slow the flows down.
  RELAY_LIMIT_PER_SECOND: "100000",
  REDIS_URL: redis().url,
}));

/** Three instances behind a proxy, for the whole file: they outlive every outage the tests put Redis through. */
const trio = [0, 1, 2].map(() => serverForAll(() => ({ TRUST_PROXY: "1" })));
const instances = () => trio.map((app) => app());

type Answer = { status: number; ok: boolean; title: string; description: string };

async function send(origin: string, fields: Record<string, string>, client = "198.51.100.7"): Promise<Answer> {
  const { status, result } = await signUp(origin, fields, { client });
  return { status, ok: result.ok, ...result.notice };
}

const SUCCESS = "Cadastro realizado!";

describe("instances on one Redis act as one", () => {
  it.each([
    ["relayed once, and all three get its outcome", { status: 200, text: "ok" }, 200, SUCCESS, undefined],
    [
      "relayed once, and its failure is told to all three",
      { status: 500, text: "planilha cheia" },
      502,
      "Falha ao enviar",
      "Webhook retornou 500 Internal Server Error: planilha cheia",
    ],
  ])("concurrent identical posts to three instances are %s", async (_case, webhook, status, title, description) => {
    const fields = filledForm(`mesma-${status}@exemplo.com.br`, `P1_${status}`);
    // A slow webhook keeps the first relay in flight while the others arrive.
    standIn.webhook = { ...webhook, delayMs: 800 };
    const answers = await Promise.all(instances().map((app) => send(app.origin, fields)));
    for (const answer of answers) expect(answer).toMatchObject({ status, title, ...(description && { description }) });
    expect(standIn.relayedEmails()).toEqual([fields.email]);
  });

  it("the no-JavaScript budget holds across instances", async () => {
    const answers: Answer[] = [];
    for (let index = 0; index < QUESTION_RELAYS_PER_MINUTE + 3; index++) {
      const origin = instances()[index % 3]!.origin;
      let question = (await pageTokens(origin)).question!;
      for (;;) {
        const { status, result } = await signUp(
          origin,
          {
            ...visitor(),
            email: `semjs${index}@exemplo.com.br`,
            challengeToken: question.token,
            challengeAnswer: String(solveQuestion(question.text)),
          },
          // Each from an address of its own: one address gets only its share of the budget.
          { client: `198.51.100.${index}` },
        );
        // The render's question took its three answers: answer the new one it hands out.
        if (result.notice.title === "Pergunta expirada") {
          question = result.question!;
          continue;
        }
        answers.push({ status, ok: result.ok, ...result.notice });
        break;
      }
    }
    expect(answers.map((answer) => answer.status)).toEqual([
      ...Array(QUESTION_RELAYS_PER_MINUTE).fill(200),
      429,
      429,
      429,
    ]);
    expect(answers[QUESTION_RELAYS_PER_MINUTE]).toMatchObject({
      title: "Muitos cadastros sem captcha",
      description:
        "Recebemos muitos cadastros pela pergunta de verificação agora. Tente de novo em alguns minutos, ou ative o JavaScript para usar o captcha.",
    });
    expect(standIn.relayedEmails()).toHaveLength(QUESTION_RELAYS_PER_MINUTE);
  });
});

describe("a busy instance", () => {
  it("kept busy by a spike (page views and sign-ups at once), it accepts every sign-up a healthy Redis answers: none is refused 503", async () => {
    const [app] = instances();
    const views = Array.from({ length: 400 }, (_, index) =>
      fetch(`${app!.origin}/?utm_source=campanha${index}`).then((response) => response.text()),
    );
    const signups = Array.from({ length: 200 }, (_, index) =>
      send(
        app!.origin,
        filledForm(`pico${index}@exemplo.com.br`, `P1_pico${index}`),
        `198.18.${index >> 8}.${index & 255}`,
      ),
    );
    const answered = await Promise.all(signups);
    await Promise.all(views);

    // On cores far too busy the stand-in's siteverify can miss its bound (a 502): the promise is Redis's answers.
    expect(answered.filter((answer) => answer.status === 503)).toEqual([]);
    expect(standIn.relayedEmails()).toHaveLength(answered.filter((answer) => answer.status === 200).length);
  });
});

describe("a Redis that answers but takes no writes", () => {
  const readiness = async (origin: string) => {
    const response = await fetch(`${origin}/readyz`);
    return [response.status, await response.text()];
  };

  it("a read-only replica (any refused write: a Redis out of memory too): /readyz says not ready and why, until Redis takes writes again", async () => {
    const [app] = instances();
    const fields = filledForm("replica@exemplo.com.br", "P1_replica");
    // A replica of a master that is not there: it answers every read and refuses every write.
    await redis().cli("REPLICAOF", "127.0.0.1", String(await freePort()));
    try {
      expect(await readiness(app!.origin)).toEqual([
        503,
        "not ready: Redis (REDIS_URL) refuses writes: READONLY You can't write against a read only replica.",
      ]);
      expect(await send(app!.origin, fields)).toMatchObject({ status: 503, title: "Cadastro indisponível no momento" });
    } finally {
      await redis().cli("REPLICAOF", "NO", "ONE");
    }
    expect(await readiness(app!.origin)).toEqual([200, "ready"]);
    expect(await send(app!.origin, fields)).toMatchObject({ status: 200, title: SUCCESS });
    expect(standIn.relayedEmails()).toEqual(["replica@exemplo.com.br"]);
  });
});

describe("while Redis is away", () => {
  type FlowAnswer = { email: string; status: number | "no answer"; title?: string };

  /** Distinct sign-ups, one after another from each of `workers` visitors, until `stop()` says so. */
  function flow(origins: string[], stop: () => boolean, tag: string, workers = 4) {
    const answered: FlowAnswer[] = [];
    let next = 0;
    const done = Promise.all(
      Array.from({ length: workers }, async () => {
        while (!stop()) {
          const index = next++;
          const email = `${tag}${index}@exemplo.com.br`;
          try {
            const answer = await send(origins[index % origins.length]!, filledForm(email, `P1_${tag}${index}`));
            answered.push({ email, status: answer.status, title: answer.title });
          } catch {
            answered.push({ email, status: "no answer" });
          }
        }
      }),
    ).then(() => answered);
    return { answered, done };
  }

  const statuses = (origins: string[], path: string) =>
    Promise.all(origins.map(async (origin) => (await fetch(origin + path)).status));
  const allReady = (origins: string[]) => Promise.all(origins.map((origin) => waitForOk(`${origin}/readyz`)));

  it("killed and restarted while sign-ups flow: no crash, every visitor answered, nothing relayed twice, sign-ups succeed once it is back", async () => {
    const origins = instances().map((app) => app.origin);
    let redisIsBack = false;
    const running = flow(origins, () => redisIsBack, "fluxo");

    await until(() => running.answered.length >= 20, { what: "sign-ups flowing" });
    await redis().kill();
    await until(() => running.answered.filter((answer) => answer.status === 503).length >= 5, {
      what: "sign-ups meeting the outage",
    });
    const readinessAway = await statuses(origins, "/readyz");
    const livenessAway = await statuses(origins, "/healthz");
    const pageAway = (await fetch(`${origins[0]}/`)).status;
    await redis().restart();
    await allReady(origins);
    redisIsBack = true;
    const during = await running.done;
    let sent = 0;
    const after = await flow(origins, () => sent++ >= 6, "depois", 1).done;

    expect(readinessAway).toEqual([503, 503, 503]);
    expect(livenessAway).toEqual([200, 200, 200]);
    expect(pageAway).toBe(200);
    for (const app of instances()) expect(app.process.exitCode).toBeNull();
    expect(during.filter((answer) => answer.status === "no answer")).toEqual([]);
    expect(new Set(during.map((answer) => answer.status))).toEqual(new Set([200, 503]));
    for (const answer of during.filter((answer) => answer.status === 503)) {
      expect(answer.title).toBe("Cadastro indisponível no momento");
    }
    expect(after.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);

    const relayed = standIn.relayedEmails();
    expect(new Set(relayed).size).toBe(relayed.length);
    const acknowledged = [...during, ...after].filter((answer) => answer.status === 200).map((answer) => answer.email);
    expect(relayed.sort()).toEqual(acknowledged.sort());
  });

  it("a relay whose record was lost with Redis is recorded once Redis is back, so a retry on another instance is not relayed again", async () => {
    const persistent = await startRedis({ persistent: true });
    try {
      const [first, second] = [await start({ REDIS_URL: persistent.url }), await start({ REDIS_URL: persistent.url })];
      const fields = filledForm("gravada@exemplo.com.br", "P1_lost");
      standIn.webhook = { status: 200, text: "ok", hold: true };
      const answering = send(first!.origin, fields);
      await standIn.arrived("webhook");
      await persistent.kill(); // the claim is in the log; the relay's record cannot be sent
      standIn.releaseWebhook();
      expect(await answering).toMatchObject({ status: 200, title: SUCCESS });
      await first!.printed(/"event":"ledger-settle-failed"/);
      await persistent.restart();
      await allReady([first!.origin, second!.origin]);
      await first!.printed(/"event":"ledger-resettled"/);

      expect(await send(second!.origin, fields)).toMatchObject({ status: 200, title: SUCCESS });
      expect(standIn.relayedEmails()).toEqual(["gravada@exemplo.com.br"]);
    } finally {
      await persistent.stop();
    }
  });

  it("a Redis that stops answering costs a sign-up its short timeout, not a hang, and the same sign-up succeeds once it answers", async () => {
    const [app] = instances();
    const fields = filledForm("lenta@exemplo.com.br", "P1_slow");
    redis().freeze();
    try {
      const answer = await send(app!.origin, fields);
      expect(answer).toMatchObject({ status: 503, title: "Cadastro indisponível no momento" });
      // Its command's own timeout ended it.
      await app!.printed(/"outcome":"store-unavailable".*Redis did not answer within 1000 ms/);
      expect(await answers(`${app!.origin}/readyz`, 503)).toBe(true);
      expect(await answers(`${app!.origin}/`)).toBe(true);
    } finally {
      redis().thaw();
    }
    await allReady([app!.origin]);
    expect(await send(app!.origin, fields)).toMatchObject({ status: 200, title: SUCCESS });
    expect(standIn.relayedEmails()).toEqual(["lenta@exemplo.com.br"]);
  });
});
