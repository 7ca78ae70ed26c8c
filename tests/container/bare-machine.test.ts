/**
 * `npm run test:bare`: the README's quick start on a bare machine. A clean
 * clone of the committed code runs, inside the Node image the Dockerfile
 * builds on (Node and npm, nothing else: no Chromium, no Java, no Redis, no
 * nginx), the README's first command as it is written there, which must serve
 * the site; then, of the second, what a bare machine adds to the run CI has
 * just made on its own machine: `npm test`'s set-up (its `pretest`, which must
 * install every tool the suites need) and its first lane. The whole suite runs
 * once per CI run, on CI's machine (.ci/run). Needs a Docker engine, like
 * `npm run test:container` (.ci/run prepares one).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { freePort, ROOT } from "../harness/app-server";
import { docker, runtimeImage } from "./docker";

/** The README's quick start: the lines of its first `sh` block, without their comments. */
function quickStart(): { serve: string; test: string } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  const commands = (block ?? "")
    .split("\n")
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter(Boolean);
  if (commands.length !== 2) throw new Error(`the README's quick start should hold two commands, found: ${commands}`);
  return { serve: commands[0]!, test: commands[1]! };
}

it("the README's quick start on a bare machine: the first command serves the site, the second's set-up and unit lane pass", async ({
  annotate,
}) => {
  const { serve, test } = quickStart();
  expect(test, "the README's second command").toBe("npm test");
  /** What `npm test` starts with on a bare machine: its set-up, then the unit lane (lint and typecheck run on CI's). */
  const bareTest = "npm run pretest && npm run test:unit";
  const image = runtimeImage();
  const port = await freePort();
  const clone = mkdtempSync(join(tmpdir(), "bare-machine-"));
  execFileSync("git", ["clone", "--quiet", ROOT, join(clone, "src")]);
  // The first command serves until stopped: it runs in the background until the site answers,
  // then the second runs on the same machine, as a newcomer would type them.
  // Its errors too (apt-get's), in the one stream the test reads.
  const script = `set -u
exec 2>&1
cd /src
export PORT=${port} CI=true NO_COLOR=1 FORCE_COLOR=0
setsid bash -c '${serve}' > /tmp/serve.log 2>&1 &
served=$!
node -e '
  const deadline = Date.now() + 600000;
  (async function poll() {
    try {
      const page = await fetch("http://127.0.0.1:${port}/");
      const text = await page.text();
      if (page.status === 200 && text.includes("previdência")) { console.log("bare machine: the site answers 200"); process.exit(0); }
    } catch {}
    if (Date.now() > deadline) { console.log("bare machine: the site never answered"); process.exit(1); }
    setTimeout(poll, 1000);
  })();' || { tail -40 /tmp/serve.log; exit 1; }
kill -TERM -- "-$served"; wait "$served" 2>/dev/null
served_in=$SECONDS
${bareTest}
code=$?
echo "bare machine: the second command exited with $code after $((SECONDS - served_in)) s (the first served in $served_in s)"
exit $code`;
  await annotate(`${image}, a clean clone, then:\n  ${serve}\n  ${bareTest} (of \`${test}\`)`);
  // Detached, then read: an attached `docker run` beside another step's through podman's Docker
  // API has been answered "unable to upgrade to tcp, received 409".
  const name = `bare-machine-${port}`;
  try {
    await docker(
      "run",
      "-d",
      "--name",
      name,
      "--network",
      "host",
      "--user",
      "root",
      "-v",
      `${join(clone, "src")}:/src`,
      image,
      "bash",
      "-c",
      script,
    );
    await docker("wait", name);
    const lines = (await docker("logs", name)).split("\n");
    // Some engines (podman's Docker API) report 0 whatever the container's exit code: read it from the output.
    const passed = lines.some((line) => line.includes("bare machine: the second command exited with 0"));
    // What the run did: the set-up it needed, the site's answer and each suite's summary; or how it ended.
    const summary =
      /^(bare machine:|test tools:|\s*Tests |\s*Test Files |\s*\d+ passed|> prevly-landing@\S+ (pretest|lint|test)$)/;
    await annotate((passed ? lines.filter((line) => summary.test(line)) : lines.slice(-150)).join("\n"));
    expect(passed, "the second command exited with 0").toBe(true);
  } finally {
    await docker("rm", "-f", name).catch(() => {});
    rmSync(clone, { recursive: true, force: true });
  }
});
