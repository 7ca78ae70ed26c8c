/**
 * `npm run test:compose`: the shipped compose.yaml with its Sentinel group brought
 * up as ops run it (`docker-compose -f compose.yaml -f compose.sentinel.yaml
 * --profile monitoring up --build`, or on the image `npm run test:container` built when CI names it in
 * PREVLY_IMAGE): two instances in queued mode acknowledging
 * what a replica holds, a Redis primary, two replicas and three Sentinels,
 * nginx, Prometheus with the alert rules), with the webhook stand-in as one more
 * service of an override file. Services reach each
 * other by name inside the stack's network; this test reaches nginx, the
 * stand-in and Prometheus through ports published on 127.0.0.1. Needs a Docker
 * engine and docker-compose (.ci/run prepares both).
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, expect, it } from "vitest";
import { parse } from "yaml";
import { content } from "~/content";
import { FORM_REACHED_PATH } from "~/insight/paths";
import { freePort, ROOT } from "../harness/app-server";
import { panelQueries } from "../harness/dashboard";
import { postSignup, signUp, visitorFields } from "../harness/signup-client";
import { StandInClient, WEBHOOK_PATH, type ReceivedWebhook } from "../harness/stand-in";
import { until, waitForOk } from "../harness/wait";
import { cli, docker, runtimeImage, SHARED_IMAGE } from "./docker";

const SECRET = "compose-test-secret-0123456789abcdef";
const SIGNING_SECRET = "compose-webhook-signing-secret";
const METRICS_TOKEN = "compose-metrics-token-0123456789";
const STAND_IN_PORT_INSIDE = 4000;
const project = `prevly-compose-${Date.now().toString(36)}`;
const folder = mkdtempSync(join(tmpdir(), "compose-test-"));
const [lbPort, standInPort, prometheusPort] = [await freePort(), await freePort(), await freePort()];
const origin = `http://127.0.0.1:${lbPort}`;
const prometheus = `http://127.0.0.1:${prometheusPort}`;
const standIn = new StandInClient(`http://127.0.0.1:${standInPort}`);
const { success, storeUnavailable } = content.messages;
/** Sentinel's 5 s to call the primary down, its election, and the apps finding the new primary (measured: see docs). */
const FAILOVER_BOUND_S = 30;

/** What ops put in the environment or .env: compose.yaml requires the first two. */
const env = {
  ...process.env,
  SIGNUP_SECRET: SECRET,
  WEBHOOK_URL: `http://webhook:${STAND_IN_PORT_INSIDE}${WEBHOOK_PATH}`,
  WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
  METRICS_TOKEN,
  PREVLY_PORT: `127.0.0.1:${lbPort}`,
  PROMETHEUS_PORT: `127.0.0.1:${prometheusPort}`,
};
/** docker-compose on this test's project: compose.yaml and `files`, in `environment`. */
const composeOf = (environment: NodeJS.ProcessEnv, files: string[], ...args: string[]) =>
  cli(
    "docker-compose",
    ["-p", project, ...["compose.yaml", ...files].flatMap((file) => ["-f", file]), ...args],
    environment,
  );
/** The stack as ops run it with its Sentinel group and monitoring, plus the stand-in webhook's override. */
const composeWith = (environment: NodeJS.ProcessEnv, ...args: string[]) =>
  composeOf(environment, ["compose.sentinel.yaml", join(folder, "override.yaml")], "--profile", "monitoring", ...args);
const compose = (...args: string[]) => composeWith(env, ...args);
/** What docker-compose makes of compose.yaml and `files` with `environment`, starting nothing. */
const composeConfig = (environment: NodeJS.ProcessEnv, ...files: string[]) => composeOf(environment, files, "config");

/** Polls what only the stack can show, every `intervalMs`. */
const poll = (what: string, check: () => Promise<boolean>, timeoutMs = 30_000, intervalMs = 500) =>
  until(check, { what, timeoutMs, intervalMs });

type RulesFile = { groups: Array<{ interval?: string; rules: Array<{ alert?: string }> }> };
const shippedRules = (file: string) => parse(readFileSync(join(ROOT, "deploy/prometheus", file), "utf8")) as RulesFile;

/**
 * The shipped Prometheus configuration, quickened: scrapes and evaluations every second (the recording rules' daily
 * group too). The alert rules are the shipped ones: promtool proves them, unit/metrics the series they read.
 */
function writeQuickPrometheus(): void {
  const config = parse(readFileSync(join(ROOT, "deploy/prometheus/prometheus.yml"), "utf8")) as {
    global: Record<string, string>;
  };
  Object.assign(config.global, { scrape_interval: "1s", evaluation_interval: "1s" });
  // JSON is YAML.
  writeFileSync(join(folder, "prometheus.yml"), JSON.stringify(config, null, 2));
  const recordings = shippedRules("insight.yml");
  for (const group of recordings.groups) delete group.interval;
  writeFileSync(join(folder, "insight.yml"), JSON.stringify(recordings, null, 2));
}

type ApiAnswer<T> = { status: string; data: T };
async function prometheusApi<T>(path: string): Promise<T> {
  const answer = (await (await fetch(prometheus + path)).json()) as ApiAnswer<T>;
  expect(answer.status, `${path}: ${JSON.stringify(answer)}`).toBe("success");
  return answer.data;
}
/** The series a query returns now (an instant query, as Grafana's bar gauges and stats ask). */
const instantQuery = async (promql: string) =>
  (await prometheusApi<{ result: unknown[] }>(`/api/v1/query?query=${encodeURIComponent(promql)}`)).result;

let signups = 0;
/** A visitor of its own signs up through nginx: the address it gave, and the answer. */
async function press(name: string, headers?: Record<string, string>) {
  const email = `${name}-${++signups}@exemplo.com.br`;
  const fields = { ...visitorFields(SECRET), email, hcaptchaToken: `P1_${name}_${signups}` };
  return { email, ...(await signUp(origin, fields, { headers })) };
}

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
  // JSON is YAML: no YAML library needed to write the override.
  const override = {
    services: {
      webhook: {
        image: runtimeImage(),
        command: ["node", "/stand-in/stand-in.mjs", String(STAND_IN_PORT_INSIDE), "0.0.0.0"],
        volumes: [`${folder}:/stand-in:ro`],
        ports: [`127.0.0.1:${standInPort}:${STAND_IN_PORT_INSIDE}`],
      },
      ...(SHARED_IMAGE && { app1: { image: SHARED_IMAGE }, app2: { image: SHARED_IMAGE } }),
      prometheus: {
        volumes: ["prometheus.yml", "insight.yml"].map((file) => `${join(folder, file)}:/etc/prometheus/${file}:ro`),
      },
    },
  };
  writeQuickPrometheus();
  writeFileSync(join(folder, "override.yaml"), JSON.stringify(override, null, 2));
}

const emailOf = (hit: ReceivedWebhook) => (hit.body as { email?: string } | null)?.email;
/** Resolves once the webhook has received a sign-up of each address. */
const delivered = (emails: string[]) =>
  poll(`the webhook receiving ${emails.length} sign-up(s)`, async () => {
    const received = new Set((await standIn.received()).webhook.map(emailOf));
    return emails.every((email) => received.has(email));
  });

afterAll(async () => {
  // The stack and its volume removed.
  await compose("down", "-v", "--timeout", "10");
  rmSync(folder, { recursive: true, force: true });
});

it("compose.yaml refuses to start without WEBHOOK_URL, naming it", async () => {
  await expect(composeConfig({ ...env, WEBHOOK_URL: "" })).rejects.toMatchObject({
    stderr: expect.stringContaining("set WEBHOOK_URL"),
  });
});

it("compose.yaml runs Prometheus only in the monitoring profile, and needs METRICS_TOKEN only there", async () => {
  const config = await composeConfig({ ...env, METRICS_TOKEN: "" });
  const { services } = parse(config) as { services: Record<string, { profiles?: string[] }> };
  const profiles = Object.entries(services).map(([name, service]) => `${name}:${service.profiles?.join() ?? ""}`);
  expect(profiles.sort()).toEqual(["app1:", "app2:", "lb:", "prometheus:monitoring", "redis:"]);
});

// Grafana's image cannot be made here: its compose file is checked as compose reads it, not run.
it("deploy/grafana/compose.yaml adds Grafana to the monitoring profile, its provisioning and dashboards mounted from the repository", async () => {
  const config = await composeConfig(env, "deploy/grafana/compose.yaml");
  type Service = { profiles?: string[]; volumes?: Array<string | { source?: string; target: string }> };
  const grafana = (parse(config) as { services: Record<string, Service> }).services.grafana;
  expect(grafana?.profiles).toEqual(["monitoring"]);
  const mounts = (grafana?.volumes ?? []).map((volume) =>
    typeof volume === "string" ? volume.split(":").slice(0, 2).join(":") : `${volume.source}:${volume.target}`,
  );
  expect(mounts).toEqual(
    expect.arrayContaining(
      ["provisioning", "dashboards"].map((part) => `${join(ROOT, "deploy/grafana", part)}:/etc/grafana/${part}`),
    ),
  );
});

it("the stack comes up: two apps, the Sentinel group, nginx, Prometheus and the stand-in webhook", async ({
  annotate,
}) => {
  await writeOverride();
  const started = performance.now();
  await compose("up", "-d", ...(SHARED_IMAGE ? [] : ["--build"]));
  const upSeconds = (performance.now() - started) / 1000;
  await waitForOk(`${origin}/readyz`, { timeoutMs: 120_000 });
  // Ready is not yet taking sign-ups: each waits for a replica to confirm it, and a replica syncs after its start.
  await poll("a replica online", async () =>
    /^slave\d+:.*state=online/m.test(await compose("exec", "-T", "redis", "redis-cli", "INFO", "replication")),
  );
  await waitForOk(`${prometheus}/-/ready`, { timeoutMs: 30_000 });
  await waitForOk(`http://127.0.0.1:${standInPort}/control/received`, { timeoutMs: 30_000 });
  const seconds = (performance.now() - started) / 1000;
  await annotate(`${seconds.toFixed(0)} s, ${upSeconds.toFixed(0)} s of them in docker-compose up`);
});

it("through nginx: the page (again at once: from nginx's cache), and a sign-up answered 'Cadastro realizado!' reaches the webhook signed", async () => {
  const page = await fetch(`${origin}/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("previdência");
  const again = await fetch(`${origin}/`);
  expect([again.status, again.headers.get("x-cache-status")]).toEqual([200, "HIT"]);
  const { email, status, result } = await press("compose");
  expect([status, result.notice.title]).toEqual([200, success.title]);
  await delivered([email]);
  const hit = (await standIn.received()).webhook.find((received) => emailOf(received) === email)!;
  // What it carries is the app's (unit/delivery, unit/pipeline); compose's part is the signing secret.
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit.headers["x-signup-signature"])) ?? [];
  expect(v1, "the signature").toBe(createHmac("sha256", SIGNING_SECRET).update(`${t}.${hit.raw}`).digest("hex"));
});

it("the dead-letter command runs in an app container: nothing dead-lettered", async () => {
  expect(await compose("exec", "-T", "app1", "node", "build/dead-letters.js", "list")).toBe(
    "no dead-lettered sign-ups",
  );
});

it("Prometheus scrapes both apps with the token and loads the rules: after a campaign's traffic through nginx, every panel of the launch's dashboard returns a series", async ({
  annotate,
}) => {
  const campaignPage = `${origin}/?utm_source=news&utm_medium=email&utm_campaign=lancamento`;
  const views = (count: number) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const page = await fetch(campaignPage, { headers: { referer: "https://mail.google.com/" } });
        await page.arrayBuffer();
      }),
    );
  // A campaign is a label once a sign-up carried it, on the instance that took it: nginx's two instances each
  // take one (which one nginx picks is its own affair), or a view logged to the other is (other). Both counted:
  // both apps scraped with the token. The panels read recording rules; the shipped alert rules are loaded beside them.
  // Each instance shows two series of it (JavaScript on and off): counted by instance.
  const campaignKnownBy = () =>
    instantQuery('count(count by (instance) (signups_accepted_total{utm_campaign="lancamento"}))');
  await poll(
    "the campaign known by both instances",
    async () => {
      const known = (await campaignKnownBy()) as Array<{ value: [number, string] }>;
      if (known[0]?.value[1] === "2") return true;
      expect((await press("campanha", { referer: campaignPage })).status, "the campaign's sign-up").toBe(200);
      return false;
    },
    30_000,
    1_000,
  );
  // Views before and after a scrape saw the campaign: its hour's views grow, so its conversion is defined.
  await views(4);
  await poll(
    "the campaign's views scraped",
    async () => (await instantQuery('page_views_total{utm_campaign="lancamento"}')).length > 0,
  );
  await views(4);
  const beacon = await fetch(origin + FORM_REACHED_PATH, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8" },
    body: "utm_source=news&utm_medium=email&utm_campaign=lancamento&referrer=mail.google.com",
  });
  expect(beacon.status, "the beacon").toBe(204);
  // A post without the captcha's token: the captcha's refusals have a series.
  const refused = await postSignup(origin, { ...visitorFields(SECRET), email: "sem-captcha@exemplo.com.br" });
  expect(refused.status, "the post without a token").toBe(400);

  const queries = panelQueries();
  const waiting = new Set(queries);
  try {
    await poll(
      "every panel's query returning a series",
      async () => {
        for (const query of [...waiting]) if ((await instantQuery(query.promql)).length > 0) waiting.delete(query);
        return waiting.size === 0;
      },
      60_000,
      1_000,
    );
  } catch (error) {
    const empty = [...waiting].map((query) => `${query.panel} (${query.refId}): ${query.promql}`);
    throw new Error(`${(error as Error).message}; no series for:\n${empty.join("\n")}`);
  }
  type Loaded = { groups: Array<{ rules: Array<{ name: string }> }> };
  const loaded = (await prometheusApi<Loaded>("/api/v1/rules")).groups.flatMap((group) => group.rules);
  const alerts = shippedRules("alerts.yml").groups.flatMap((group) => group.rules.map((rule) => rule.alert));
  expect(alerts.length).toBeGreaterThan(0);
  expect(
    alerts.filter((alert) => !loaded.some((rule) => rule.name === alert)),
    "alert rules not loaded",
  ).toEqual([]);
  await annotate(`${queries.length} queries, ${alerts.length} alert rules`);
});

it("the monitoring profile's Prometheus refuses once without METRICS_TOKEN, naming it, and stays stopped", async () => {
  await composeWith({ ...env, METRICS_TOKEN: "" }, "up", "-d", "--no-deps", "prometheus");
  const id = (await compose("ps", "-a", "-q", "prometheus")).trim();
  const state = () => docker("inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", id);
  await poll("Prometheus stopping", async () => (await state()).startsWith("exited"));
  // Long enough for a restart policy that would start it again to have done so.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(await state()).toBe("exited 0");
  const logs = (await compose("logs", "--no-color", "prometheus")).split("\n");
  expect(
    logs.filter((line) => line.includes("set METRICS_TOKEN")),
    "the refusal's lines",
  ).toHaveLength(1);
});

it(`the primary's machine lost: Sentinel promotes a replica, sign-ups through nginx are accepted again within ${FAILOVER_BOUND_S} s, and every acknowledged one reaches the webhook`, async ({
  annotate,
}) => {
  // The webhook down: every acknowledged sign-up waits in Redis, so only the replicas can still deliver it.
  await standIn.setWebhook({ status: 503, text: "" });
  const acknowledged: string[] = [];
  let refused = 0;
  /** Acknowledged, or refused in pt-BR with the address kept: a visitor never sees anything else. */
  const accepted = async () => {
    const { email, status, result } = await press("failover");
    if (status === 200 && result.notice.title === success.title) {
      acknowledged.push(email);
      return true;
    }
    expect([status, result.notice.title, result.email]).toEqual([503, storeUnavailable.title, email]);
    refused += 1;
    return false;
  };
  expect(await accepted(), "the sign-up before the loss accepted").toBe(true);
  const primary = await compose("ps", "-q", "redis");
  const volume = await docker("inspect", "--format", "{{range .Mounts}}{{.Name}}{{end}}", primary);
  const killed = performance.now();
  await docker("kill", primary);
  // Its machine gone: the container and its data with it, so nothing comes back under its name.
  await docker("rm", "-f", primary);
  await docker("volume", "rm", volume);
  await poll("a sign-up accepted after the failover", accepted, FAILOVER_BOUND_S * 1000).catch(async (error) => {
    // What the Sentinels did (their votes, each failover's start and end) is the first thing to read.
    const sentinels = await compose("logs", "--no-color", "sentinel-1", "sentinel-2", "sentinel-3");
    throw new Error(`${error}\n${sentinels}`);
  });
  const seconds = ((performance.now() - killed) / 1000).toFixed(1);
  await standIn.setWebhook({ status: 200, text: "ok" });
  await delivered(acknowledged);
  await annotate(
    `accepted again ${seconds} s after the kill, ${refused} refused meanwhile; ${acknowledged.length} acknowledged, all delivered`,
  );
});
