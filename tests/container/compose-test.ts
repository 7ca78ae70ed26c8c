/**
 * `npm run test:compose`: the shipped compose.yaml brought up as ops run it
 * (`docker-compose up --build`: two instances in queued mode, Redis
 * append-only, nginx), with the webhook stand-in as one more service of an
 * override file. Services reach each other by name inside the stack's network;
 * this test reaches nginx and the stand-in through ports published on
 * 127.0.0.1. Needs a Docker engine and docker-compose (.ci/run prepares both).
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { freePort } from "../harness/app-server";
import { signUp, visitorFields } from "../harness/signup-client";
import { StandInClient, WEBHOOK_PATH, type ReceivedWebhook } from "../harness/stand-in";
import { until, waitForOk } from "../harness/wait";
import { ROOT } from "../harness/app-server";
import { assert, check, cli, finish, run } from "./checks";

const SECRET = "compose-test-secret-0123456789abcdef";
const SIGNING_SECRET = "compose-webhook-signing-secret";
const METRICS_TOKEN = "compose-metrics-token-0123456789";
const STAND_IN_PORT_INSIDE = 4000;
const project = `prevly-compose-${Date.now().toString(36)}`;
const folder = mkdtempSync(join(tmpdir(), "compose-test-"));
const [lbPort, standInPort] = [await freePort(), await freePort()];
const origin = `http://127.0.0.1:${lbPort}`;
const standIn = new StandInClient(`http://127.0.0.1:${standInPort}`);

/** What ops put in the environment or .env: compose.yaml requires the first two. */
const env = {
  ...process.env,
  SIGNUP_SECRET: SECRET,
  WEBHOOK_URL: `http://webhook:${STAND_IN_PORT_INSIDE}${WEBHOOK_PATH}`,
  WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
  METRICS_TOKEN,
  PREVLY_PORT: `127.0.0.1:${lbPort}`,
};
const compose = (...args: string[]) =>
  cli("docker-compose", ["-p", project, "-f", "compose.yaml", "-f", join(folder, "override.yaml"), ...args], env);

/** The stand-in, bundled into one file that the Node image the Dockerfile builds on runs as is. */
async function writeOverride(): Promise<void> {
  await build({
    entryPoints: [join(ROOT, "tests/harness/stand-in-cli.ts")],
    outfile: join(folder, "stand-in.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "warning",
  });
  const nodeImage = /^FROM (node:\S+) AS runtime/m.exec(readFileSync(join(ROOT, "Dockerfile"), "utf8"))?.[1];
  assert(nodeImage, "no runtime stage on a node image in the Dockerfile");
  // JSON is YAML: no YAML library needed to write the override.
  const override = {
    services: {
      webhook: {
        image: nodeImage,
        command: ["node", "/stand-in/stand-in.mjs", String(STAND_IN_PORT_INSIDE), "0.0.0.0"],
        volumes: [`${folder}:/stand-in:ro`],
        ports: [`127.0.0.1:${standInPort}:${STAND_IN_PORT_INSIDE}`],
      },
    },
  };
  writeFileSync(join(folder, "override.yaml"), JSON.stringify(override, null, 2));
}

const emailOf = (hit: ReceivedWebhook) => (hit.body as { email?: string } | null)?.email;

async function main(): Promise<void> {
  await check("compose.yaml refuses to start without WEBHOOK_URL, naming it", async () => {
    const failure = await run("docker-compose", ["-p", project, "-f", "compose.yaml", "config"], {
      cwd: ROOT,
      env: { ...env, WEBHOOK_URL: "" },
    }).then(
      () => null,
      (error: { stderr: string }) => error,
    );
    assert(failure, "docker-compose config accepted an empty WEBHOOK_URL");
    assert(failure.stderr.includes("set WEBHOOK_URL"), `stderr: ${failure.stderr}`);
  });

  await writeOverride();
  await check("the stack comes up: two apps, Redis, nginx and the stand-in webhook", async () => {
    const started = performance.now();
    await compose("up", "-d", "--build");
    await waitForOk(`${origin}/readyz`, { timeoutMs: 120_000 });
    await until(
      () =>
        standIn.received().then(
          () => true,
          () => false,
        ),
      { what: "the stand-in", timeoutMs: 30_000 },
    );
    return `${((performance.now() - started) / 1000).toFixed(0)} s`;
  });

  await check(
    "through nginx: the page (again at once: from nginx's cache), and a sign-up answered 'Cadastro realizado!' reaches the webhook signed",
    async () => {
      const page = await fetch(`${origin}/`);
      assert(page.status === 200 && (await page.text()).includes("previdência"), `/ answered ${page.status}`);
      const again = await fetch(`${origin}/`);
      const cacheStatus = again.headers.get("x-cache-status");
      assert(again.status === 200 && cacheStatus === "HIT", `/ again answered ${again.status} ${cacheStatus}`);
      const { status, result } = await signUp(origin, {
        ...visitorFields(SECRET),
        email: "compose@exemplo.com.br",
        hcaptchaToken: "P1_compose",
      });
      assert(
        status === 200 && result.notice.title === "Cadastro realizado!",
        `answered ${status} ${result.notice.title}`,
      );
      await until(
        async () => (await standIn.received()).webhook.some((hit) => emailOf(hit) === "compose@exemplo.com.br"),
        {
          what: "the webhook receiving the sign-up",
          timeoutMs: 30_000,
        },
      );
      const hit = (await standIn.received()).webhook.find(
        (received) => emailOf(received) === "compose@exemplo.com.br",
      )!;
      const body = hit.body as Record<string, string>;
      assert(Object.keys(body).join() === "email,hcaptchaToken,source,ts,userAgent", `fields ${Object.keys(body)}`);
      assert(/^[A-Za-z0-9_-]{43}$/.test(String(hit.headers["idempotency-key"])), "no Idempotency-Key");
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit.headers["x-signup-signature"])) ?? [];
      const expected = createHmac("sha256", SIGNING_SECRET).update(`${t}.${hit.raw}`).digest("hex");
      assert(v1 === expected, `signature ${hit.headers["x-signup-signature"]} does not verify`);
    },
  );

  await check("/metrics through nginx: 404 without the token, the queue's figures with it", async () => {
    const hidden = await fetch(`${origin}/metrics`);
    assert(hidden.status === 404, `without the token: ${hidden.status}`);
    const shown = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await shown.text();
    assert(shown.status === 200, `with the token: ${shown.status}`);
    assert(/^signup_queue_jobs\{state="failed"\} 0$/m.test(text), "no dead-letter count");
    assert(/^signup_queue_oldest_undelivered_seconds 0$/m.test(text), "undelivered sign-ups left");
  });

  await check("the dead-letter command runs in an app container: nothing dead-lettered", async () => {
    const listed = await compose("exec", "-T", "app1", "node", "build/dead-letters.js", "list");
    assert(listed === "no dead-lettered sign-ups", `listed: ${listed}`);
  });
}

try {
  await main();
} finally {
  await check("docker-compose down removes the stack and its volume", async () => {
    await compose("down", "-v", "--timeout", "10");
  });
  rmSync(folder, { recursive: true, force: true });
}
finish();
