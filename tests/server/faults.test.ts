import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, SERVE_COMMAND, serveEnv, startApp, type RunningApp } from "../harness/app-server";
import { solveQuestion } from "../harness/question-solver";
import { pageTokens, readPageFields, signUp as send, type SignupAnswer } from "../harness/signup-client";
import { startRedis } from "../harness/real-servers";
import { WEBHOOK_PATH } from "../harness/stand-in";
import { accepts, until, waitForOk } from "../harness/wait";
import { builtServerSuite, SUITE_SECRET, withCaptcha } from "./suite";

/**
 * Faults met by the built server started as `npm start` starts it (remix-serve,
 * its express pipeline): a stalled webhook or siteverify, a restart, a stop, a
 * log that cannot be written, odd requests. What a module decides alone is
 * proven in the unit lane; here, what only the running process shows.
 */

const FAILURE_TITLE = "Falha ao enviar";
const FALLBACK = "Não foi possível enviar seu cadastro agora. Tente novamente.";

const { standIn, start, serverForAll, visitor } = builtServerSuite((standIn) => ({ WEBHOOK_URL: standIn.webhookUrl }));
/** The server of the tests that leave it as they found it, each with addresses of its own. */
const shared = serverForAll();

/** A sign-up as the enhanced form sends it, answered as JSON. */
function signUp(app: RunningApp, email: string, extra: Record<string, string> = {}) {
  return send(app.origin, { ...visitor(), email, hcaptchaToken: `token-${email}`, ...extra });
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
    const app = await start(withCaptcha(standIn));
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

describe("the webhook's error text never shows where the webhook is (each spelling: unit/webhook-error-text)", () => {
  it("n8n's 404 for a workflow switched off, naming its path, shows its visitor the status alone", async () => {
    const secretPath = WEBHOOK_PATH.split("/").at(-1)!; // "c0ffee-secret-path"
    standIn.webhook = {
      status: 404,
      text: JSON.stringify({
        code: 404,
        message: `The requested webhook "POST ${secretPath}" is not registered.`,
        hint: "The workflow must be active for a production URL to run successfully.",
      }),
    };
    const answer = await signUp(shared(), "n8n-desligado@exemplo.com.br");
    expect(answer.status).toBe(502);
    expect(answer.result.notice).toEqual({ title: FAILURE_TITLE, description: "Webhook retornou 404 Not Found" });
  });
});

describe("restarts", () => {
  it("a page rendered before a restart still signs up after it, with the secret kept beside the data", async () => {
    const data = await mkdtemp(join(tmpdir(), "restart-"));
    const env = { SIGNUPS_FILE: join(data, "signups.jsonl"), SIGNUP_SECRET: "" };
    const before = await start(env);
    const page = await pageTokens(before.origin);
    await before.stop();

    const after = await start(env);
    const kept = readFileSync(join(data, "signup-secret"), "utf8").trim();
    const fields = { ...readPageFields(page, kept), email: "ana@exemplo.com.br", hcaptchaToken: "t-1" };
    expect((await send(after.origin, fields)).status).toBe(200);
    expect(standIn.relayedEmails()).toEqual(["ana@exemplo.com.br"]);
  });

  it("a tab opened before SIGNUP_SECRET is rotated signs up on its first press, with the old one as SIGNUP_SECRET_PREVIOUS", async () => {
    // Questions outlive a restart only in a Redis (without it, a restart expires them whatever the secret).
    const redis = await startRedis();
    try {
      const [oldSecret, newSecret] = ["o".repeat(32), "n".repeat(32)];
      const before = await start({ REDIS_URL: redis.url, SIGNUP_SECRET: oldSecret });
      const page = await pageTokens(before.origin);
      await before.stop();

      const after = await start({ REDIS_URL: redis.url, SIGNUP_SECRET: newSecret, SIGNUP_SECRET_PREVIOUS: oldSecret });
      const answer = await send(after.origin, {
        ...readPageFields(page, oldSecret),
        email: "ana@exemplo.com.br",
        challengeToken: page.question.token,
        challengeAnswer: String(solveQuestion(page.question.text)),
      });
      expect([answer.status, answer.result.notice.title]).toEqual([200, "Cadastro realizado!"]);
      expect(standIn.relayedEmails()).toEqual(["ana@exemplo.com.br"]);
    } finally {
      await redis.stop();
    }
  });
});

describe("stopping", () => {
  it("SIGTERM, and a second one during the drain, let a sign-up in flight finish and be answered; then the process exits 0", async () => {
    const app = await start();
    standIn.webhook = { status: 200, text: "ok", hold: true };
    const pending = signUp(app, "paciente@exemplo.com.br");
    await standIn.arrived("webhook");
    const exitCode = app.stop();
    // The first signal is handled once the port stops taking new connections.
    await until(async () => !(await accepts(Number(new URL(app.origin).port))), { what: "the listener closed" });
    app.process.kill("SIGTERM");
    standIn.releaseWebhook();
    expect((await pending).status).toBe(200);
    expect(await exitCode).toBe(0);
  });

  it("a visitor still uploading when a stop begins is not waited for: nothing is relayed, so a retry cannot relay twice", async () => {
    const app = await start();
    const body = new URLSearchParams({
      ...visitor(),
      email: "lenta@exemplo.com.br",
      hcaptchaToken: "P1_slow-upload",
    }).toString();
    const upload = openUpload(app, body.length);
    await upload.send(body.slice(0, 10));
    const exitCode = app.stop();
    // The stop counts no sign-up in flight: the upload was never admitted, so nothing waits for it.
    await app.printed(/"event":"shutdown","signal":"SIGTERM","signupsInFlight":0/);
    expect(await exitCode).toBe(0);
    // The rest arrives only once the process has exited.
    await upload.send(body.slice(10));
    const answer = await upload.answer;
    expect(answer).not.toMatch(/^HTTP\/1\.1 200/);
    expect(standIn.received.webhook).toHaveLength(0);
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

  /** Start-up printed exactly the exit line and `Invalid configuration: {reason}`. */
  async function expectRefused(env: Record<string, string>, reason: string) {
    expect(await refusal(env)).toEqual(["app exited with 1:", `Invalid configuration: ${reason}`]);
  }

  it("several instances that could not sign forms alike", async () => {
    await expectRefused(
      { REDIS_URL: "redis://127.0.0.1:6379", SIGNUP_SECRET: "" },
      "SIGNUP_SECRET must be set when REDIS_URL is: every instance must sign the forms with the same secret",
    );
  });

  it("a REDIS_URL naming a database Redis refuses", async () => {
    const redis = await startRedis();
    try {
      await expectRefused(
        { REDIS_URL: `${redis.url}/99` },
        "REDIS_URL names database 99, which Redis refuses (ERR DB index is out of range)",
      );
    } finally {
      await redis.stop();
    }
  });

  it("a REDIS_URL whose credentials Redis refuses (a wrong password, or none); the right one starts", async () => {
    const redis = await startRedis({ options: ["--requirepass", "senha-certa"] });
    const withPassword = (password: string) => redis.url.replace("redis://", `redis://:${password}@`);
    const credentialsRefused = (why: string) =>
      `Redis refuses REDIS_URL's credentials (${why}); put the user and password Redis expects in it: redis://user:password@host:port`;
    try {
      await expectRefused(
        { REDIS_URL: withPassword("senha-errada") },
        credentialsRefused("WRONGPASS invalid username-password pair or user is disabled."),
      );
      await expectRefused({ REDIS_URL: redis.url }, credentialsRefused("NOAUTH Authentication required."));
      const app = await start({ REDIS_URL: withPassword("senha-certa") });
      expect(await (await fetch(`${app.origin}/readyz`)).text()).toBe("ready");
    } finally {
      await redis.stop();
    }
  });

  it("a SIGNUPS_FILE that is not a regular file: /dev/null, a named pipe", async () => {
    const notRegular = (path: string) =>
      `SIGNUPS_FILE is not a regular file (${path}); name a file on a disk or volume`;
    await expectRefused({ SIGNUPS_FILE: "/dev/null" }, notRegular("/dev/null"));
    const pipe = join(await mkdtemp(join(tmpdir(), "pipe-")), "signups.jsonl");
    await once(spawn("mkfifo", [pipe]), "exit");
    await expectRefused({ SIGNUPS_FILE: pipe }, notRegular(pipe));
  });
});

describe("a log that cannot be written any more", () => {
  /** 20 probes and a sign-up: all must be answered as usual. */
  async function stillServes(origin: string): Promise<number[]> {
    const statuses: number[] = [];
    for (let index = 0; index < 20; index++) statuses.push((await fetch(`${origin}/healthz`)).status);
    statuses.push((await send(origin, { ...visitor(), email: "log@exemplo.com.br", hcaptchaToken: "P1_log" })).status);
    return statuses;
  }

  it("its reader gone (EPIPE): the server loses log lines, not its answers", async () => {
    const app = await start();
    app.process.stdout!.destroy();
    app.process.stderr!.destroy();
    expect(await stillServes(app.origin)).toEqual([...Array<number>(20).fill(200), 200]);
    expect(app.process.exitCode).toBeNull();
    expect(standIn.received.webhook).toHaveLength(1);
  });

  it("its disk full (EFBIG): the server loses log lines, not its answers", async () => {
    const folder = await mkdtemp(join(tmpdir(), "full-log-"));
    const port = await freePort();
    const [node, ...args] = SERVE_COMMAND;
    // The log may not grow at all: its first line already fails.
    const child = spawn("bash", ["-c", `ulimit -f 0 && exec "$@" > "${folder}/app.log" 2>&1`, "bash", node!, ...args], {
      env: { ...serveEnv(port), WEBHOOK_URL: standIn.webhookUrl, SIGNUP_SECRET: SUITE_SECRET },
      stdio: "ignore",
    });
    try {
      const origin = `http://127.0.0.1:${port}`;
      await waitForOk(`${origin}/healthz`);
      expect(await stillServes(origin)).toEqual([...Array<number>(20).fill(200), 200]);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("how the server is started and odd requests", () => {
  it("a method Remix cannot take is refused before it, in short pt-BR text, without a stack trace (each method: unit/guards)", async () => {
    const app = shared();
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      httpRequest(`${app.origin}/`, { method: "TRACE" }, resolve).on("error", reject).end(),
    );
    const text = (await response.toArray()).join("");
    expect([response.statusCode, response.headers.allow, response.headers["content-type"], text]).toEqual([
      405,
      "GET, HEAD, POST",
      "text/plain; charset=utf-8",
      "Método não permitido.",
    ]);
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    expect(app.output()).not.toMatch(/\n\s+at /);
  });

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

  it("the page's own data requests still reach Remix", async () => {
    const app = shared();
    const page = await fetch(`${app.origin}/?_data=routes%2F_index`);
    expect(page.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await page.json()).toMatchObject({ publicUrl: null, botTrap: expect.any(Object) });
    expect((await fetch(`${app.origin}/planos?_data=routes%2F%24`)).status).toBe(404);
  });

  it("an unknown path is answered with the 404 page and logged with its path", async () => {
    const app = shared();
    const response = await fetch(`${app.origin}/planos/antigos?utm_source=x`);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("Oops! Page not found");
    await app.printed(/"event":"not-found","path":"\/planos\/antigos"/);
  });

  it("a port already in use stops start-up with exit code 1 and one line naming it", async () => {
    const app = shared();
    const { port } = new URL(app.origin);
    const [node, ...args] = SERVE_COMMAND;
    const second = spawn(node!, args, {
      env: { ...serveEnv(port), SIGNUP_SECRET: SUITE_SECRET },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let errors = "";
    second.stderr!.on("data", (chunk) => (errors += chunk));
    const [code] = (await once(second, "exit")) as [number];
    expect(code).toBe(1);
    expect(errors.trim().split("\n")).toContain(
      `Cannot listen on port ${port}: it is already in use. Stop what listens there or set PORT to a free port.`,
    );
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
  });

  it("an empty PORT means unset: it listens on 3000 (or, with 3000 taken by another program, says so)", async () => {
    const app = await start({ PORT: "" }, { expectPort: 3000 }).catch((error: Error) => error);
    const printed = () => (app instanceof Error ? app.message : app.output());
    await until(
      () => /"event":"listening","port":3000|Cannot listen on port 3000: it is already in use/.test(printed()),
      {
        what: "listening on 3000, or saying why not",
      },
    );
  });
});

describe("behind a balancer other than the shipped nginx", () => {
  /** GET `path` on an open connection, resolving with the whole answer (its body chunked or of a Content-Length). */
  function exchange(socket: Socket, path: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let answer = "";
      const closed = () => reject(new Error(`the connection closed before ${path} was answered`));
      const read = (chunk: Buffer) => {
        answer += chunk.toString("latin1");
        const end = answer.indexOf("\r\n\r\n");
        const length = /^content-length: *(\d+)/im.exec(answer)?.[1];
        const whole = length ? answer.length >= end + 4 + Number(length) : answer.endsWith("\r\n0\r\n\r\n");
        if (end === -1 || !whole) return;
        socket.off("data", read).off("close", closed);
        resolve(answer);
      };
      socket.on("data", read).once("close", closed);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    });
  }

  const open = async (port: number) => {
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    return socket;
  };

  it("an idle connection is kept 620 s, longer than AWS's and Google's balancers keep theirs (Node's own is 5 s): the balancer closes first, and its next request is answered", async () => {
    const appConnection = await open(Number(new URL(shared().origin).port));
    try {
      // What the balancer is told: Node writes the keep-alive it keeps into each answer, and keeps it.
      expect(await exchange(appConnection, "/healthz")).toMatch(/^keep-alive: timeout=620\r$/im);
      expect(await exchange(appConnection, "/healthz")).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n(2\r\n)?ok/);
    } finally {
      appConnection.destroy();
    }
  });
});
