/**
 * `npm run test:container`: builds the production image with the plain `docker` CLI and
 * probes it as ops would. Works against a real Docker engine or podman's Docker API
 * (.ci/run prepares one). It fails, never skips, when no engine answers.
 * Containers use the host network, so the webhook stand-in this test starts on
 * 127.0.0.1 is reachable from inside them.
 */
import { freePort } from "../harness/app-server";
import { postSignup, visitorFields } from "../harness/signup-client";
import { StandIn } from "../harness/stand-in";
import { waitForOk } from "../harness/wait";
import { assert, check, docker, finish, run, runtimeImage } from "./checks";

const IMAGE = `prevly-landing:test-${Date.now().toString(36)}`;
const created: string[] = [];

const SECRET = "container-test-secret-0123456789abcdef";

/** Posts the form as a browser would, with the bot-trap fields of a visitor who took a person's time. */
async function signUp(origin: string, email: string, hcaptchaToken: string): Promise<Response> {
  return postSignup(origin, { ...visitorFields(SECRET), email, hcaptchaToken }, { userAgent: "container-test" });
}

async function startContainer(env: Record<string, string>): Promise<{ id: string; origin: string }> {
  const port = await freePort();
  const flags = Object.entries({ PORT: String(port), ...env }).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  const id = await docker("run", "-d", "--network", "host", ...flags, IMAGE);
  created.push(id);
  return { id, origin: `http://127.0.0.1:${port}` };
}

async function main(): Promise<void> {
  const standIn = new StandIn();
  await standIn.start();
  try {
    await check(
      "a container engine answers",
      async () => `server ${await docker("version", "--format", "{{.Server.Version}}")}`,
    );

    await check("the image builds from a clean context", async () => {
      const started = performance.now();
      await docker("build", "--network", "host", "--no-cache", "-t", IMAGE, ".");
      return `${((performance.now() - started) / 1000).toFixed(0)} s`;
    });
    await check("the app adds under 60 MB to its Node base image", async () => {
      // The base (Node itself) is what it is; what we add is ours to keep lean.
      const base = runtimeImage();
      const bytes = Number(await docker("image", "inspect", "-f", "{{.Size}}", IMAGE));
      const baseBytes = Number(await docker("image", "inspect", "-f", "{{.Size}}", base));
      assert(bytes - baseBytes < 60 * 1000 * 1000, `${bytes - baseBytes} bytes over ${base}`);
      return `${(bytes / 1e6).toFixed(0)} MB in all, ${((bytes - baseBytes) / 1e6).toFixed(0)} MB over ${base}`;
    });

    await check("the image runs Node 24, a supported LTS, without npm", async () => {
      const version = await docker("run", "--rm", "--entrypoint", "node", IMAGE, "--version");
      assert(/^v24\./.test(version), `node ${version}`);
      const npm = await docker("run", "--rm", "--entrypoint", "sh", IMAGE, "-c", "command -v npm || echo none");
      assert(npm === "none", `npm found at ${npm}`);
      return version;
    });

    const app = await startContainer({
      WEBHOOK_URL: standIn.webhookUrl,
      SIGNUP_SECRET: SECRET,
    });
    await check("the server comes up", () => waitForOk(`${app.origin}/healthz`, { timeoutMs: 20_000 }));

    await check("the image's own HEALTHCHECK succeeds inside the container", async () => {
      const test = JSON.parse(await docker("inspect", "-f", "{{json .Config.Healthcheck.Test}}", app.id)) as string[];
      assert(test[0] === "CMD", `unexpected healthcheck ${JSON.stringify(test)}`);
      await docker("exec", app.id, ...test.slice(1));
    });

    await check("the server runs as a non-root user", async () => {
      const uid = await docker("exec", app.id, "id", "-u");
      assert(uid !== "0", "runs as root");
      return `uid ${uid}`;
    });

    await check("docker stop -t 10 lets a sign-up in flight be relayed and answered, then exits 0", async () => {
      standIn.webhook = { status: 200, delayMs: 1_500 };
      const inFlight = signUp(app.origin, "lenta@exemplo.com.br", "P1_in-flight");
      await standIn.arrived("webhook");
      assert(standIn.relayedEmails().join() === "lenta@exemplo.com.br", `relayed ${standIn.relayedEmails().join()}`);
      const started = performance.now();
      await docker("stop", "-t", "10", app.id);
      const seconds = (performance.now() - started) / 1000;
      assert((await inFlight).status === 200, "the sign-up in flight was cut off");
      const exitCode = await docker("inspect", "-f", "{{.State.ExitCode}}", app.id);
      assert(exitCode === "0", `exit code ${exitCode} (137 is SIGKILL)`);
      return `${seconds.toFixed(2)} s`;
    });

    await check("without a webhook, sign-ups land in /app/data, writable by the runtime user", async () => {
      const sink = await startContainer({ SIGNUP_SECRET: SECRET });
      await waitForOk(`${sink.origin}/healthz`, { timeoutMs: 20_000 });
      const response = await signUp(sink.origin, "bia@exemplo.com.br", "P1_sink");
      assert(response.status === 200, `sign-up answered ${response.status}`);
      const line = await docker("exec", sink.id, "cat", "/app/data/signups.jsonl");
      assert(line.includes('"email":"bia@exemplo.com.br"'), `file holds: ${line}`);
      await docker("stop", "-t", "10", sink.id);
    });

    await check("an invalid WEBHOOK_URL stops the container at once with one clear log line", async () => {
      const bad = await startContainer({ WEBHOOK_URL: "ftp://automacao.exemplo.com/hook" });
      const exitCode = Number(await docker("wait", bad.id));
      assert(exitCode !== 0, "exited 0");
      const { stdout, stderr } = await run("docker", ["logs", bad.id]);
      const logs = `${stdout}${stderr}`;
      assert(logs.includes("Invalid configuration: WEBHOOK_URL must be an http(s) URL"), `logs: ${logs}`);
      return `exit code ${exitCode}`;
    });
  } finally {
    await standIn.stop();
    for (const id of created) await docker("rm", "-f", id).catch(() => {});
    await docker("rmi", "-f", IMAGE).catch(() => {});
  }
}

await main();
finish();
