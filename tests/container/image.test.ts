/**
 * `npm run test:container`: builds the production image with the plain `docker` CLI and
 * probes it as ops would. Works against a real Docker engine or podman's Docker API
 * (.ci/run prepares one). It fails, never skips, when no engine answers.
 * Containers use the host network, so the webhook stand-in this test starts on
 * 127.0.0.1 is reachable from inside them.
 */
import { afterAll, expect, it } from "vitest";
import { freePort } from "../harness/app-server";
import { postSignup, visitorFields } from "../harness/signup-client";
import { standInPerFile } from "../harness/stand-in-per-file";
import { waitForOk } from "../harness/wait";
import { docker, run, runtimeImage, SHARED_IMAGE } from "./docker";

const IMAGE = SHARED_IMAGE ?? `prevly-landing:test-${Date.now().toString(36)}`;
const created: string[] = [];
const standIn = standInPerFile();

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

afterAll(async () => {
  for (const id of created) await docker("rm", "-f", id).catch(() => {});
  if (!SHARED_IMAGE) await docker("rmi", "-f", IMAGE).catch(() => {});
});

it("a container engine answers", async ({ annotate }) => {
  await annotate(`server ${await docker("version", "--format", "{{.Server.Version}}")}`);
});

it("the image builds from a clean context", async ({ annotate }) => {
  const started = performance.now();
  await docker("build", "--network", "host", "--no-cache", "-t", IMAGE, ".");
  await annotate(`${((performance.now() - started) / 1000).toFixed(0)} s`);
});

it("the app adds under 60 MB to its Node base image", async ({ annotate }) => {
  // The base (Node itself) is what it is; what we add is ours to keep lean.
  const base = runtimeImage();
  const bytes = Number(await docker("image", "inspect", "-f", "{{.Size}}", IMAGE));
  const baseBytes = Number(await docker("image", "inspect", "-f", "{{.Size}}", base));
  await annotate(`${(bytes / 1e6).toFixed(0)} MB in all, ${((bytes - baseBytes) / 1e6).toFixed(0)} MB over ${base}`);
  expect(bytes - baseBytes).toBeLessThan(60 * 1000 * 1000);
});

it("the image runs Node 24, a supported LTS, without npm", async () => {
  expect(await docker("run", "--rm", "--entrypoint", "node", IMAGE, "--version")).toMatch(/^v24\./);
  const npm = await docker("run", "--rm", "--entrypoint", "sh", IMAGE, "-c", "command -v npm || echo none");
  expect(npm, "npm's path").toBe("none");
});

let app: { id: string; origin: string };
it("the server comes up", async () => {
  app = await startContainer({ WEBHOOK_URL: standIn.webhookUrl, SIGNUP_SECRET: SECRET });
  await waitForOk(`${app.origin}/healthz`, { timeoutMs: 20_000 });
});

it("the image's own HEALTHCHECK succeeds inside the container", async () => {
  const test = JSON.parse(await docker("inspect", "-f", "{{json .Config.Healthcheck.Test}}", app.id)) as string[];
  expect(test[0]).toBe("CMD");
  await docker("exec", app.id, ...test.slice(1));
});

it("the server runs as a non-root user", async ({ annotate }) => {
  const uid = await docker("exec", app.id, "id", "-u");
  await annotate(`uid ${uid}`);
  expect(uid).not.toBe("0");
});

it("docker stop -t 10 lets a sign-up in flight be relayed and answered, then exits 0", async ({ annotate }) => {
  standIn.webhook = { status: 200, delayMs: 1_500 };
  const inFlight = signUp(app.origin, "lenta@exemplo.com.br", "P1_in-flight");
  await standIn.arrived("webhook");
  expect(standIn.relayedEmails()).toEqual(["lenta@exemplo.com.br"]);
  const started = performance.now();
  await docker("stop", "-t", "10", app.id);
  await annotate(`${((performance.now() - started) / 1000).toFixed(2)} s`);
  expect((await inFlight).status, "the sign-up in flight").toBe(200);
  expect(await docker("inspect", "-f", "{{.State.ExitCode}}", app.id), "exit code (137 is SIGKILL)").toBe("0");
});

it("without a webhook, sign-ups land in /app/data, writable by the runtime user", async () => {
  const sink = await startContainer({ SIGNUP_SECRET: SECRET });
  await waitForOk(`${sink.origin}/healthz`, { timeoutMs: 20_000 });
  expect((await signUp(sink.origin, "bia@exemplo.com.br", "P1_sink")).status).toBe(200);
  expect(await docker("exec", sink.id, "cat", "/app/data/signups.jsonl")).toContain('"email":"bia@exemplo.com.br"');
  await docker("stop", "-t", "10", sink.id);
});

it("an invalid WEBHOOK_URL stops the container at once with one clear log line", async ({ annotate }) => {
  const bad = await startContainer({ WEBHOOK_URL: "ftp://automacao.exemplo.com/hook" });
  const exitCode = Number(await docker("wait", bad.id));
  await annotate(`exit code ${exitCode}`);
  expect(exitCode).not.toBe(0);
  const { stdout, stderr } = await run("docker", ["logs", bad.id]);
  expect(`${stdout}${stderr}`).toContain("Invalid configuration: WEBHOOK_URL must be an http(s) URL");
});
