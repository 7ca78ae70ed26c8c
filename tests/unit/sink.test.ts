import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDelivery } from "~/delivery/delivery.server";
import type { Submission } from "~/delivery/submission";
import { SignupSink } from "~/delivery/sink.server";
import { parseSettings } from "~/server/settings.server";

/** The JSON-lines file without WEBHOOK_URL: rotation and an unwritable place never lose or corrupt a sign-up. */

const sinkFile = async () => join(await mkdtemp(join(tmpdir(), "sink-")), "signups.jsonl");

const submission = (email: string): Submission => ({ email, hcaptchaToken: "", source: "x", ts: "", userAgent: "" });

/** The e-mail of each line, once the file is checked to end with a whole line. */
async function emailsIn(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8");
  expect(text === "" || text.endsWith("\n")).toBe(true);
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as Submission).email);
}

const append = (sink: SignupSink, email: string) => sink.append(submission(email), { key: email, timeoutMs: 1_000 });

describe("the JSON-lines sink", () => {
  it("without WEBHOOK_URL takes every sign-up as one whole line, its folder made, however many arrive at once", async () => {
    const file = join(await sinkFile(), "..", "nova", "signups.jsonl");
    const { relay } = createDelivery(parseSettings({ SIGNUPS_FILE: file }));
    const emails = Array.from({ length: 40 }, (_, index) => `p${index}@exemplo.com`);
    await Promise.all(emails.map((email) => relay(submission(email), { key: email, timeoutMs: 1_000 })));
    expect((await emailsIn(file)).sort()).toEqual(emails.sort());
  });

  it.each([
    ["moved away (logrotate's create mode)", (file: string) => rename(file, `${file}.1`)],
    ["deleted", (file: string) => rm(file)],
  ])("when the file is %s, the next sign-up lands in a new file at SIGNUPS_FILE", async (_case, rotate) => {
    const file = await sinkFile();
    const sink = new SignupSink(file);
    expect(await append(sink, "antes@exemplo.com.br")).toEqual({ kind: "delivered" });
    await rotate(file);
    expect(await append(sink, "depois@exemplo.com.br")).toEqual({ kind: "delivered" });
    expect(await emailsIn(file)).toEqual(["depois@exemplo.com.br"]);
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  it.each([
    ["a folder", async (file: string) => (await mkdir(file), file)],
    ["under a regular file", async (file: string) => (await writeFile(file, ""), join(file, "signups.jsonl"))],
  ])("a SIGNUPS_FILE that is %s stops start-up with one line naming it", async (_kind, unwritable) => {
    const file = await unwritable(await sinkFile());
    expect(() => new SignupSink(file)).toThrowError(
      new RegExp(
        `^Invalid configuration: SIGNUPS_FILE cannot be opened for appending \\([A-Z]+: ${file.replace(/\./g, "\\.")}\\)$`,
      ),
    );
  });

  it("when the file becomes unwritable later, it is unhealthy and sign-ups fail, until it is writable again", async () => {
    const file = await sinkFile();
    const sink = new SignupSink(file);
    expect(await sink.healthy()).toBe(true);
    await rm(file);
    await mkdir(file); // a folder where the file was: nothing can append there, not even root

    expect(await append(sink, "ana@exemplo.com.br")).toEqual({ kind: "sink", reason: "EISDIR" });
    expect(await sink.healthy()).toBe(false);

    // Mended: the next sign-up is written, and the health check trusts the sink again.
    await rm(file, { recursive: true });
    expect(await append(sink, "bia@exemplo.com.br")).toEqual({ kind: "delivered" });
    expect(await sink.healthy()).toBe(true);
    expect(await emailsIn(file)).toEqual(["bia@exemplo.com.br"]);
  });
});
