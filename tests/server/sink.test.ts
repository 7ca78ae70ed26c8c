import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";
import { signUp as send } from "../harness/signup-client";
import { builtServerSuite, SUITE_SECRET } from "./suite";

/**
 * The JSON-lines sink (no WEBHOOK_URL) against the built server: a full disk,
 * log rotation and an unwritable place must never lose or corrupt a sign-up
 * that was answered 200.
 */

const FALLBACK = {
  title: "Falha ao enviar",
  description: "Não foi possível enviar seu cadastro agora. Tente novamente.",
};
const { start, visitor } = builtServerSuite();

async function sinkFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "sink-")), "signups.jsonl");
}

function signUp(app: RunningApp, email: string) {
  return send(app.origin, { ...visitor(), email, hcaptchaToken: `token-${email}` });
}

async function linesOf(file: string): Promise<Array<{ email: string }>> {
  const text = await readFile(file, "utf8").catch(() => "");
  expect(text === "" || text.endsWith("\n")).toBe(true);
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { email: string });
}

describe("the JSON-lines sink", () => {
  it("on a full disk writes each line whole or not at all, and answers 200 only for lines it wrote", async () => {
    const file = await sinkFile();
    const app = await start({ SIGNUPS_FILE: file }, { fileSizeLimitKiB: 1 });
    const answers: Array<{ email: string; status: number }> = [];
    for (let index = 0; index < 12; index++) {
      const email = `pessoa${index}@exemplo.com.br`;
      const { status, result: body } = await signUp(app, email);
      answers.push({ email, status });
      if (status !== 200) expect(body.notice).toEqual(FALLBACK);
    }
    const written = (await linesOf(file)).map((line) => line.email);
    const acknowledged = answers.filter((answer) => answer.status === 200).map((answer) => answer.email);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status === 502).length).toBeGreaterThan(0);
    expect(written).toEqual(acknowledged);
    expect((await stat(file)).size).toBeLessThanOrEqual(1024);
    expect(app.output()).toMatch(/"outcome":"sink-failed-EFBIG"/);
    expect(app.output()).not.toContain("webhook-unreachable");
    expect(app.process.exitCode).toBeNull();
    // The file still opens and the disk has room: only the failed writes tell, and the probes say so.
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(503);
    expect((await fetch(`${app.origin}/readyz`)).status).toBe(503);
  });

  it.each([
    ["moved away (logrotate's create mode)", (file: string) => rename(file, `${file}.1`)],
    ["deleted", (file: string) => rm(file)],
  ])("when the file is %s, the next sign-up lands in a new file at SIGNUPS_FILE", async (_case, rotate) => {
    const file = await sinkFile();
    const app = await start({ SIGNUPS_FILE: file });
    expect((await signUp(app, "antes@exemplo.com.br")).status).toBe(200);
    await rotate(file);
    expect((await signUp(app, "depois@exemplo.com.br")).status).toBe(200);
    expect((await linesOf(file)).map((line) => line.email)).toEqual(["depois@exemplo.com.br"]);
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  it.each([
    ["a folder", async (file: string) => (await mkdir(file), file)],
    ["under a regular file", async (file: string) => (await writeFile(file, ""), join(file, "signups.jsonl"))],
  ])("a SIGNUPS_FILE that is %s stops start-up with one line naming it", async (_kind, unwritable) => {
    const file = await unwritable(await sinkFile());
    const failure = await startApp({ SIGNUPS_FILE: file, SIGNUP_SECRET: SUITE_SECRET }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    const lines = (failure as Error).message.split("\n").filter((line) => !line.startsWith("[config] warning:"));
    expect(lines).toEqual([
      "app exited with 1:",
      expect.stringMatching(
        new RegExp(
          `^Invalid configuration: SIGNUPS_FILE cannot be opened for appending \\([A-Z]+: ${file.replace(/\./g, "\\.")}\\)$`,
        ),
      ),
      "",
    ]);
  });

  it("when the file becomes unwritable later, /healthz answers 503 and sign-ups fail loudly, until it is writable again", async () => {
    const file = await sinkFile();
    const app = await start({ SIGNUPS_FILE: file });
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    await rm(file);
    await mkdir(file); // a folder where the file was: nothing can append there, not even root

    const { status, result: body } = await signUp(app, "ana@exemplo.com.br");
    expect(status).toBe(502);
    expect(body.notice).toEqual(FALLBACK);
    const health = await fetch(`${app.origin}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.text()).toBe("unavailable: SIGNUPS_FILE cannot be written");

    // Mended: the next sign-up is written, and the probe trusts the sink again.
    await rm(file, { recursive: true });
    expect((await signUp(app, "bia@exemplo.com.br")).status).toBe(200);
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    expect((await linesOf(file)).map((line) => line.email)).toEqual(["bia@exemplo.com.br"]);
  });
});
