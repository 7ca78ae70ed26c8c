import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { postSignup } from "../harness/signup-client";
import { builtServerSuite } from "./suite";

/** The Nu HTML Checker (the W3C validator's engine), run on what the built server sends. */
const VNU_JAR: string = createRequire(import.meta.url)("vnu-jar");
const run = promisify(execFile);

const { serverForAll, visitor } = builtServerSuite((standIn) => ({ WEBHOOK_URL: standIn.webhookUrl }));
const app = serverForAll();
/** Each page's errors, by name: the checker (Java) is started once for all of them. */
let errors: Map<string, Message[]>;

type Message = { type: string; message: string; url: string; extract?: string };

beforeAll(async () => {
  const { origin } = app();
  const refused = await postSignup(origin, { ...visitor(), email: "ana@", challengeToken: "x", challengeAnswer: "3" });
  expect(refused.status).toBe(400);
  const pages = {
    landing: await (await fetch(`${origin}/`)).text(),
    "not-found": await (await fetch(`${origin}/nada/aqui`)).text(),
    refused: await refused.text(),
  };
  errors = await checkerErrors(pages);
}, 60_000);

/** The checker's errors for each of `pages` (name → HTML), from one run over them all. */
async function checkerErrors(pages: Record<string, string>): Promise<Map<string, Message[]>> {
  const folder = await mkdtemp(join(tmpdir(), "vnu-"));
  const files = new Map<string, string>();
  for (const [name, html] of Object.entries(pages)) {
    const file = join(folder, `${name}.html`);
    await writeFile(file, html);
    files.set(file, name);
  }
  // vnu prints its findings on stderr and exits 1 when it finds errors. A run this short takes half the time on the
  // JIT's first tier and the serial collector; the first tier's frames need a deeper stack than the default.
  const java = ["-Xss4m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", VNU_JAR];
  const { stderr } = await run("java", [...java, "--errors-only", "--format", "json", ...files.keys()]).catch(
    (failure: { stderr: string }) => failure,
  );
  const found = new Map([...files.values()].map((name) => [name, [] as Message[]]));
  for (const message of (JSON.parse(stderr) as { messages: Message[] }).messages) {
    const page = files.get(fileURLToPath(message.url));
    if (!page) throw new Error(`the checker spoke of no page it was given: ${JSON.stringify(message)}`);
    found.get(page)!.push(message);
  }
  return found;
}

describe("the HTML the server sends has no Nu HTML Checker error", () => {
  it.each([
    ["the landing page", "landing"],
    ["the 404 page", "not-found"],
    ["the page a visitor without JavaScript gets after a refused sign-up", "refused"],
  ])("%s", (_page, name) => {
    expect(errors.get(name)).toEqual([]);
  });
});
