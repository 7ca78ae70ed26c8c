import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signUp } from "../harness/signup-client";
import { builtServerSuite, filledForm } from "./suite";

/**
 * The JSON-lines sink (no WEBHOOK_URL) against the built server on a full disk (a file size limit on the process):
 * no sign-up answered 200 is lost or corrupted. Rotation and an unwritable place: unit/sink.
 */

const FALLBACK = {
  title: "Falha ao enviar",
  description: "Não foi possível enviar seu cadastro agora. Tente novamente.",
};
const { start } = builtServerSuite();

describe("the JSON-lines sink", () => {
  it("on a full disk writes each line whole or not at all, and answers 200 only for lines it wrote", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "sink-")), "signups.jsonl");
    const app = await start({ SIGNUPS_FILE: file }, { fileSizeLimitKiB: 1 });
    const answers: Array<{ email: string; status: number }> = [];
    for (let index = 0; index < 12; index++) {
      const email = `pessoa${index}@exemplo.com.br`;
      const { status, result: body } = await signUp(app.origin, filledForm(email));
      answers.push({ email, status });
      if (status !== 200) expect(body.notice).toEqual(FALLBACK);
    }
    // Whole lines only: a line cut by the limit is taken back.
    const text = await readFile(file, "utf8");
    expect(text === "" || text.endsWith("\n")).toBe(true);
    const written = text
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { email: string }).email);
    const acknowledged = answers.filter((answer) => answer.status === 200).map((answer) => answer.email);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status === 502).length).toBeGreaterThan(0);
    expect(written).toEqual(acknowledged);
    expect((await stat(file)).size).toBeLessThanOrEqual(1024);
    expect(app.output()).toMatch(/"outcome":"sink-failed-EFBIG"/);
    expect(app.output()).not.toContain("webhook-unreachable");
    expect(app.process.exitCode).toBeNull();
    // The file still opens and the disk has room: only the failed writes tell, and the probes say so.
    const health = await fetch(`${app.origin}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.text()).toBe("unavailable: SIGNUPS_FILE cannot be written");
    expect((await fetch(`${app.origin}/readyz`)).status).toBe(503);
  });
});
