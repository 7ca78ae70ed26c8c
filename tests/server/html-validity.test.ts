import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";
import { postSignup, visitorFields } from "../harness/signup-client";
import { StandIn } from "../harness/stand-in";
import { SUITE_SECRET } from "./suite";

/** The Nu HTML Checker (the W3C validator's engine), run on what the built server sends. */
const VNU_JAR: string = createRequire(import.meta.url)("vnu-jar");
const run = promisify(execFile);

const standIn = new StandIn();
let app: RunningApp;

beforeAll(async () => {
  await standIn.start();
  app = await startApp({
    WEBHOOK_URL: standIn.webhookUrl,
    SIGNUP_SECRET: SUITE_SECRET,
  });
});
afterAll(async () => {
  await app?.stop();
  await standIn.stop();
});

type Message = { type: string; message: string; extract?: string };

async function checkerErrors(html: string): Promise<Message[]> {
  const file = join(await mkdtemp(join(tmpdir(), "vnu-")), "page.html");
  await writeFile(file, html);
  // vnu prints its findings on stderr and exits 1 when it finds errors.
  const { stderr } = await run("java", ["-jar", VNU_JAR, "--errors-only", "--format", "json", file]).catch(
    (failure: { stderr: string }) => failure,
  );
  return (JSON.parse(stderr) as { messages: Message[] }).messages;
}

describe("the HTML the server sends has no Nu HTML Checker error", () => {
  it("the landing page", async () => {
    expect(await checkerErrors(await (await fetch(`${app.origin}/`)).text())).toEqual([]);
  });

  it("the 404 page", async () => {
    expect(await checkerErrors(await (await fetch(`${app.origin}/nada/aqui`)).text())).toEqual([]);
  });

  it("the page a visitor without JavaScript gets after a refused sign-up", async () => {
    const fields = { ...visitorFields(SUITE_SECRET), email: "ana@", challengeToken: "x", challengeAnswer: "3" };
    const response = await postSignup(app.origin, fields);
    expect(response.status).toBe(400);
    expect(await checkerErrors(await response.text())).toEqual([]);
  });
});
