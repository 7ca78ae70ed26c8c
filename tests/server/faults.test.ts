import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";
import { signUp as send, type SignupAnswer } from "../harness/signup-client";
import { startRedis } from "../harness/real-servers";
import { builtServerSuite, filledForm, SUITE_SECRET } from "./suite";

/**
 * Faults met by the built server started as `npm start` starts it (remix-serve, its express pipeline): a stalled
 * webhook or siteverify, a stop, bad settings, a log that cannot be written, how it is started. A secret rotated:
 * cluster.test.ts; the idle connection's 620 s: unit/guards; a port taken, or PORT empty: unit/edge-answers. What a
 * module decides alone is proven in the unit lane; here, what only the running process shows.
 */

const FAILURE_TITLE = "Falha ao enviar";
const FALLBACK = "Não foi possível enviar seu cadastro agora. Tente novamente.";

const { standIn, start } = builtServerSuite((standIn) => ({ WEBHOOK_URL: standIn.webhookUrl }));

/** A sign-up as the enhanced form sends it, answered as JSON. */
function signUp(app: RunningApp, email: string, extra: Record<string, string> = {}) {
  return send(app.origin, { ...filledForm(email), ...extra });
}

/** A raw POST of the form whose body is sent in pieces; `answer` is all the server wrote before closing. */
function openUpload(app: RunningApp, length: number) {
  const socket = connect(Number(new URL(app.origin).port), "127.0.0.1");
  socket.write(
    "POST /?index&_data=routes%2F_index HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`,
  );
  let received = "";
  socket.on("data", (chunk) => (received += chunk));
  const answer = new Promise<string>((resolve) => {
    socket.once("close", () => resolve(received));
    socket.once("error", () => undefined);
  });
  const send = (text: string) =>
    new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.write(text, () => resolve())));
  return { send, answer };
}

/** The visitor's answer to a relay that could not finish: 502, 'Falha ao enviar' and the fallback text. */
function expectFallbackFailure(answer: SignupAnswer) {
  expect(answer.status).toBe(502);
  expect(answer.result.notice).toEqual({ title: FAILURE_TITLE, description: FALLBACK });
}

describe("an outgoing call that stalls never takes the server down", () => {
  it("a siteverify and a webhook that never answer each get their visitor 'Falha ao enviar', the first relaying nothing, while ten sign-ups during the stalls succeed", async () => {
    const app = await start(standIn.captchaSettings);
    standIn.siteverify = { success: true, hold: true };
    const unverified = signUp(app, "sem-resposta@exemplo.com.br");
    await standIn.arrived("siteverify");
    standIn.siteverify = { success: true };
    standIn.webhook = { status: 200, delayMs: 60_000 };
    const stalled = signUp(app, "lenta@exemplo.com.br");
    await standIn.arrived("webhook");
    standIn.webhook = { status: 200, text: "ok", delayMs: 800 };
    const others = Array.from({ length: 10 }, (_, index) => signUp(app, `pessoa${index}@exemplo.com.br`));
    for (const answer of await Promise.all(others)) expect(answer.status).toBe(200);

    expectFallbackFailure(await unverified);
    const stalledAnswer = await stalled;
    expectFallbackFailure(stalledAnswer);
    expect(stalledAnswer.result.email).toBe("lenta@exemplo.com.br");

    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    expect((await signUp(app, "depois@exemplo.com.br")).status).toBe(200);
    expect(app.process.exitCode).toBeNull();
    expect(standIn.relayedEmails().sort()).toEqual(
      [
        "depois@exemplo.com.br",
        "lenta@exemplo.com.br",
        ...Array.from({ length: 10 }, (_, i) => `pessoa${i}@exemplo.com.br`),
      ].sort(),
    );
    expect(app.output()).not.toContain("unexpected-error");
  });
});

describe("stopping", () => {
  it("SIGTERM, and a second one during the drain, let a sign-up in flight finish and be answered; a visitor still uploading is not waited for, so a retry cannot relay twice; then the process exits 0", async () => {
    const app = await start();
    standIn.webhook = { status: 200, text: "ok", hold: true };
    const pending = signUp(app, "paciente@exemplo.com.br");
    await standIn.arrived("webhook");
    const body = new URLSearchParams(filledForm("lenta@exemplo.com.br")).toString();
    const upload = openUpload(app, body.length);
    await upload.send(body.slice(0, 10));
    const exitCode = app.stop();
    // The stop counts the admitted sign-up alone: the upload never was, so nothing waits for it.
    await app.printed(/"event":"shutdown","signal":"SIGTERM","signupsInFlight":1/);
    app.process.kill("SIGTERM");
    standIn.releaseWebhook();
    expect((await pending).status).toBe(200);
    expect(await exitCode).toBe(0);
    // The rest arrives only once the process has exited.
    await upload.send(body.slice(10));
    expect(await upload.answer).not.toMatch(/^HTTP\/1\.1 200/);
    expect(standIn.relayedEmails()).toEqual(["paciente@exemplo.com.br"]);
  });
});

describe("bad settings stop start-up with one line (what a setting may be: unit/settings)", () => {
  /** What start-up printed besides warnings and JSON log lines, once it exited. */
  async function refusal(env: Record<string, string>): Promise<string[]> {
    const failure = await startApp({ SIGNUP_SECRET: SUITE_SECRET, ...env }).then(
      async (app) => (await app.stop(), new Error("it started")),
      (error: Error) => error,
    );
    return failure.message.split("\n").filter((line) => line && !/^(\[config\] warning:|\{)/.test(line));
  }

  it("a REDIS_URL whose credentials or database Redis refuses; the right one starts", async () => {
    const redis = await startRedis({ options: ["--requirepass", "senha-certa"] });
    const withPassword = (password: string) => redis.url.replace("redis://", `redis://:${password}@`);
    const credentialsRefused = (why: string) =>
      `Redis refuses REDIS_URL's credentials (${why}); put the user and password Redis expects in it: redis://user:password@host:port`;
    try {
      for (const [url, reason] of [
        [
          withPassword("senha-errada"),
          credentialsRefused("WRONGPASS invalid username-password pair or user is disabled."),
        ],
        [redis.url, credentialsRefused("NOAUTH Authentication required.")],
        [
          `${withPassword("senha-certa")}/99`,
          "REDIS_URL names database 99, which Redis refuses (ERR DB index is out of range)",
        ],
      ]) {
        expect(await refusal({ REDIS_URL: url! })).toEqual(["app exited with 1:", `Invalid configuration: ${reason}`]);
      }
      const app = await start({ REDIS_URL: withPassword("senha-certa") });
      expect(await (await fetch(`${app.origin}/readyz`)).text()).toBe("ready");
    } finally {
      await redis.stop();
    }
  });
});

describe("a log that cannot be written any more: the server loses log lines, not its answers", () => {
  /** 20 probes and a sign-up, all answered as usual, by a process still running. */
  async function expectStillServes(origin: string, exitCode: () => number | null) {
    const statuses: number[] = [];
    for (let index = 0; index < 20; index++) statuses.push((await fetch(`${origin}/healthz`)).status);
    statuses.push((await send(origin, filledForm("log@exemplo.com.br"))).status);
    expect(statuses).toEqual(Array<number>(21).fill(200));
    expect(exitCode()).toBeNull();
  }

  it.each([
    ["its reader gone (EPIPE)", {}],
    // The log may not grow at all: its first line already fails.
    ["its disk full (EFBIG)", { fileSizeLimitKiB: 0, logFile: join(tmpdir(), `full-log-${randomUUID()}.log`) }],
  ])("%s", async (_case, options) => {
    const app = await start({}, options);
    app.process.stdout!.destroy();
    app.process.stderr!.destroy();
    await expectStillServes(app.origin, () => app.process.exitCode);
    expect(standIn.received.webhook).toHaveLength(1);
  });
});

describe("how the server is started", () => {
  it("works when started from another working directory", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), "cwd-"));
    await writeFile(join(elsewhere, "package.json"), "{}");
    const app = await start({}, { cwd: elsewhere });
    const page = await fetch(`${app.origin}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /"(\/build\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    expect((await fetch(`${app.origin}${script}`)).status).toBe(200);
    expect((await fetch(`${app.origin}/robots.txt`)).status).toBe(200);
  });
});
