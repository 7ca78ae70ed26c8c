import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningApp } from "../harness/app-server";
import { builtServerSuite } from "../support/built-server-suite";
import { solveQuestion } from "../harness/question-solver";
import { startNginxBalancer, startRedis, type RunningRedis } from "../harness/real-servers";
import { pageFields, pageTokens, postSignup } from "../harness/signup-client";

/**
 * Several instances of the built server sharing a real redis-server act as
 * one: each sign-up is relayed once whichever instance it reaches, limits and
 * budgets hold for the deployment, and a Redis outage costs visitors a clear
 * answer, never a crash or a second relay.
 */

let redis: RunningRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});
beforeEach(async () => {
  // Each test starts from an empty Redis, as a fresh deployment would.
  await redis.cli("FLUSHALL");
});

const { standIn, start } = builtServerSuite((standIn) => ({
  WEBHOOK_URL: standIn.webhookUrl,
  HCAPTCHA_SECRET: "0xsecret",
  HCAPTCHA_VERIFY_URL: standIn.siteverifyUrl,
  SIGNUP_MIN_SUBMIT_MS: "0",
  // The relay ceiling has a test of its own; here it would only slow the flows down.
  RELAY_LIMIT_PER_SECOND: "100000",
  REDIS_URL: redis.url,
}));

/** `count` instances on one Redis; no SIGNUP_SECRET unless given, so they must agree on one there. */
function startInstances(count: number, env: Record<string, string> = {}): Promise<RunningApp[]> {
  return Promise.all(Array.from({ length: count }, () => start(env)));
}

/** The form as the page at `origin` hands it out, filled in by a visitor with a captcha. */
async function filledForm(origin: string, email: string, hcaptchaToken: string): Promise<Record<string, string>> {
  return { ...pageFields(await pageTokens(origin)), email, hcaptchaToken };
}

type Answer = { status: number; ok: boolean; title: string; description: string };

async function send(origin: string, fields: Record<string, string>, client = "198.51.100.7"): Promise<Answer> {
  const response = await postSignup(origin, fields, { data: true, headers: { "x-forwarded-for": client } });
  const result = (await response.json()) as { ok: boolean; notice: { title: string; description: string } };
  return { status: response.status, ok: result.ok, ...result.notice };
}

const relayedEmails = () => standIn.received.webhook.map((hit) => (hit.body as { email: string }).email);

const SUCCESS = "Cadastro realizado!";

describe("instances on one Redis act as one", () => {
  it("a page rendered by one instance signs up on another, with the secret agreed through Redis", async () => {
    const [first, second] = await startInstances(2);
    const answer = await send(second!.origin, await filledForm(first!.origin, "ana@exemplo.com.br", "P1_a"));
    expect(answer).toMatchObject({ status: 200, title: SUCCESS });
    expect(relayedEmails()).toEqual(["ana@exemplo.com.br"]);
    expect(first!.output()).not.toContain("signup-secret is used");
  });

  it("the same sign-up posted to two instances is relayed once", async () => {
    const [first, second] = await startInstances(2, { SIGNUP_SECRET: "cluster-suite-secret-0123456789abcdef" });
    const fields = await filledForm(first!.origin, "bia@exemplo.com.br", "P1_b");
    expect(await send(first!.origin, fields)).toMatchObject({ status: 200, title: SUCCESS });
    expect(await send(second!.origin, fields)).toMatchObject({ status: 200, title: SUCCESS });
    expect(relayedEmails()).toEqual(["bia@exemplo.com.br"]);
  });

  it("concurrent identical posts to three instances are relayed once, and all three get its outcome", async () => {
    const instances = await startInstances(3);
    const fields = await filledForm(instances[0]!.origin, "caio@exemplo.com.br", "P1_c");
    // A slow webhook keeps the first relay in flight while the others arrive.
    standIn.webhook = { status: 200, text: "ok", delayMs: 800 };
    const answers = await Promise.all(instances.map((app) => send(app.origin, fields)));
    expect(answers.map((answer) => [answer.status, answer.title])).toEqual([
      [200, SUCCESS],
      [200, SUCCESS],
      [200, SUCCESS],
    ]);
    expect(relayedEmails()).toEqual(["caio@exemplo.com.br"]);
  });

  it("a relay that fails is told to every instance that waited on it, and relayed once", async () => {
    const instances = await startInstances(3);
    const fields = await filledForm(instances[0]!.origin, "duda@exemplo.com.br", "P1_d");
    standIn.webhook = { status: 500, text: "planilha cheia", delayMs: 800 };
    const answers = await Promise.all(instances.map((app) => send(app.origin, fields)));
    for (const answer of answers) {
      expect(answer).toMatchObject({
        status: 502,
        title: "Falha ao enviar",
        description: "Webhook retornou 500 Internal Server Error: planilha cheia",
      });
    }
    expect(relayedEmails()).toEqual(["duda@exemplo.com.br"]);
  });

  it("one client's limit holds across instances behind nginx", async () => {
    const instances = await startInstances(3, { TRUST_PROXY: "1", RATE_LIMIT_PER_MINUTE: "5" });
    const balancer = await startNginxBalancer(instances.map((app) => app.origin));
    try {
      const tokens = await pageTokens(balancer.origin);
      const statuses: number[] = [];
      for (let index = 0; index < 12; index++) {
        const fields = { ...pageFields(tokens), email: `limite${index}@exemplo.com.br`, hcaptchaToken: `P1_l${index}` };
        statuses.push((await postSignup(balancer.origin, fields, { data: true })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
      expect(relayedEmails()).toHaveLength(5);
    } finally {
      await balancer.stop();
    }
  });

  it("the no-JavaScript budget holds across instances", async () => {
    const instances = await startInstances(3, { NOJS_RELAYS_PER_MINUTE: "3" });
    const answers: Answer[] = [];
    for (let index = 0; index < 8; index++) {
      const origin = instances[index % 3]!.origin;
      const tokens = await pageTokens(origin);
      const { question, token } = tokens.challenge!;
      answers.push(
        await send(origin, {
          ...pageFields(tokens),
          email: `semjs${index}@exemplo.com.br`,
          challengeToken: token,
          challengeAnswer: String(solveQuestion(question)),
        }),
      );
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    expect(answers[3]!.title).toBe("Muitos cadastros sem captcha");
    expect(relayedEmails()).toHaveLength(3);
  });
});

describe("while Redis is away", () => {
  /** Posts distinct sign-ups one after another from `workers` visitors until `until()` says stop. */
  async function flow(origins: string[], until: () => boolean, tag: string, workers = 4) {
    const answers: Array<{ email: string; status: number | "no answer"; title?: string }> = [];
    let next = 0;
    const tokens = await Promise.all(origins.map(pageTokens));
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (!until()) {
          const index = next++;
          const email = `${tag}${index}@exemplo.com.br`;
          const which = index % origins.length;
          try {
            const answer = await send(origins[which]!, {
              ...pageFields(tokens[which]!),
              email,
              hcaptchaToken: `P1_${tag}${index}`,
            });
            answers.push({ email, status: answer.status, title: answer.title });
          } catch {
            answers.push({ email, status: "no answer" });
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );
    return answers;
  }

  it("killed and restarted while sign-ups flow: no crash, every visitor answered, nothing relayed twice, sign-ups succeed once it is back", async () => {
    const instances = await startInstances(3, { SIGNUP_SECRET: "cluster-suite-secret-0123456789abcdef" });
    const origins = instances.map((app) => app.origin);
    let redisIsBack = false;
    const running = flow(origins, () => redisIsBack, "fluxo");

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const readinessAway = await Promise.all(origins.map(async (origin) => (await fetch(`${origin}/readyz`)).status));
    const livenessAway = await Promise.all(origins.map(async (origin) => (await fetch(`${origin}/healthz`)).status));
    const pageAway = (await fetch(`${origins[0]}/`)).status;
    await redis.restart();
    await waitUntilReady(origins);
    redisIsBack = true;
    const during = await running;
    let sent = 0;
    const after = await flow(origins, () => sent++ >= 6, "depois", 1);

    expect(readinessAway).toEqual([503, 503, 503]);
    expect(livenessAway).toEqual([200, 200, 200]);
    expect(pageAway).toBe(200);
    for (const app of instances) expect(app.process.exitCode).toBeNull();
    expect(during.filter((answer) => answer.status === "no answer")).toEqual([]);
    expect(new Set(during.map((answer) => answer.status))).toEqual(new Set([200, 503]));
    for (const answer of during.filter((answer) => answer.status === 503)) {
      expect(answer.title).toBe("Cadastro indisponível no momento");
    }
    expect(after.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);

    const relayed = relayedEmails();
    expect(new Set(relayed).size).toBe(relayed.length);
    const acknowledged = [...during, ...after].filter((answer) => answer.status === 200).map((answer) => answer.email);
    expect(relayed.sort()).toEqual(acknowledged.sort());
  });

  it("a relay whose record was lost with Redis is recorded once Redis is back, so a retry on another instance is not relayed again", async () => {
    const persistent = await startRedis({ persistent: true });
    try {
      const env = { REDIS_URL: persistent.url, SIGNUP_SECRET: "cluster-suite-secret-0123456789abcdef" };
      const [first, second] = await startInstances(2, env);
      const fields = await filledForm(first!.origin, "gravada@exemplo.com.br", "P1_lost");
      standIn.webhook = { status: 200, text: "ok", delayMs: 1_500 };
      const answering = send(first!.origin, fields);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await persistent.kill(); // the claim is in the log; the relay's record is never sent
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await persistent.restart();
      expect(await answering).toMatchObject({ status: 200, title: SUCCESS });
      await waitUntilReady([first!.origin, second!.origin]);
      await waitUntilSettled(persistent);

      expect(await send(second!.origin, fields)).toMatchObject({ status: 200, title: SUCCESS });
      expect(relayedEmails()).toEqual(["gravada@exemplo.com.br"]);
    } finally {
      await persistent.stop();
    }
  });

  it("an instance started while Redis restarts empty takes the running instances' secret, not its own", async () => {
    const [running] = await startInstances(1);
    await redis.kill();
    const starting = start(); // waits for Redis before it listens
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await redis.restart();
    const started = await starting;

    const answer = await send(running!.origin, await filledForm(started.origin, "nova@exemplo.com.br", "P1_restart"));
    expect(answer).toMatchObject({ status: 200, title: SUCCESS });
    expect(relayedEmails()).toEqual(["nova@exemplo.com.br"]);
    await waitUntilReady([running!.origin, started.origin]);
  });

  it("an instance whose signing secret Redis no longer holds says so in its readiness", async () => {
    const [app] = await startInstances(1);
    await redis.cli("SET", "prevly-landing:signup-secret", "another-deployments-secret-0123456789abcdef");
    await redis.cli("CLIENT", "KILL", "TYPE", "normal"); // the instance reconnects and offers its secret again
    const deadline = Date.now() + 5_000;
    let readiness = { status: 200, text: "" };
    while (!readiness.text.includes("signing secret") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await fetch(`${app!.origin}/readyz`);
      readiness = { status: response.status, text: await response.text() };
    }
    expect(readiness).toEqual({
      status: 503,
      text: "not ready: Redis holds another signing secret; set SIGNUP_SECRET, or restart this instance",
    });
    expect(app!.output()).toContain('"event":"signup-secret-disagrees"');
  });

  it("a Redis that stops answering costs a sign-up its short timeout, not a hang, and the same sign-up succeeds once it answers", async () => {
    const [app] = await startInstances(1, { SIGNUP_SECRET: "cluster-suite-secret-0123456789abcdef" });
    const fields = await filledForm(app!.origin, "lenta@exemplo.com.br", "P1_slow");
    redis.freeze();
    try {
      const answer = await send(app!.origin, fields);
      expect(answer).toMatchObject({ status: 503, title: "Cadastro indisponível no momento" });
      expect((await fetch(`${app!.origin}/readyz`)).status).toBe(503);
      expect((await fetch(`${app!.origin}/`)).status).toBe(200);
    } finally {
      redis.thaw();
    }
    await waitUntilReady([app!.origin]);
    expect(await send(app!.origin, fields)).toMatchObject({ status: 200, title: SUCCESS });
    expect(relayedEmails()).toEqual(["lenta@exemplo.com.br"]);
  });
});

/** Waits until no submission is in flight in `store`: each claim was settled, or expired unsettled. */
async function waitUntilSettled(store: RunningRedis): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const keys = (await store.cli("--scan", "--pattern", "*ledger*")).split("\n").filter(Boolean);
    const values = await Promise.all(keys.map((key) => store.cli("GET", key)));
    if (!values.some((value) => value.startsWith("in-flight"))) return;
    if (Date.now() > deadline) throw new Error("a claim stayed in flight");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function waitUntilReady(origins: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (const origin of origins) {
    while ((await fetch(`${origin}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`${origin} never became ready again`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
