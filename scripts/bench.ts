/**
 * `npm run bench`: the server's figures, side by side on this machine, loopback only.
 *   levels      brotli and gzip levels on the page's HTML: time and bytes (how the page cache's were chosen)
 *   render      first byte of / on a fresh render beside a cached one (the shared render expired or not)
 *   get         GET / (a) our server (remix-serve), (b) bare node:http answering the same bytes
 *               from memory, (c) nginx serving the same bytes from disk (when installed),
 *               (d) the shipped nginx (deploy/nginx.conf, its page cache) in front of our server;
 *               and our server with a unique `fbclid` per request (a campaign link); then HEAD / and GET /
 *               revalidated (304) on (a) beside (b), read by a client of our own (scripts/lib/bodiless-load.ts)
 *   signup      added latency over the webhook's own round trip (one at a time), and
 *               throughput at 50 concurrent; the same with REDIS_URL (a local
 *               redis-server), beside GET / on that instance; queued delivery
 *               (RELAY_MODE=queued) with a webhook that takes 300 ms: what the
 *               visitor waits, one at a time and at 50 concurrent; cold start
 *   frame       the first frame of / at 4× CPU slowdown: main-thread style, layout and paint up to the first
 *               contentful paint, and the longest task among them
 *   tap         the first tap on the e-mail field at 4× CPU slowdown, while the boot loads what it loads
 *   neighbours  a bot posting forged tokens at 50 a second behind one carrier address beside 20 genuine
 *               visitors there, through the shipped nginx to two queued instances: who signs up, on which press
 * `npm run bench -- --only=levels,render` runs some; all by default. Uses wrk when installed,
 * autocannon otherwise. BENCH_SECONDS sets each GET run (default 10); BENCH_TAPS the taps (default 7);
 * BENCH_FRAMES the page loads of `frame` (default 11); BENCH_RUNS the alternated runs of (a) and (b) (default 3).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { freePort, ROOT, SERVE_COMMAND } from "../tests/harness/app-server";
import { waitForOk } from "../tests/harness/wait";
import { findProgram } from "../tests/harness/programs";
import { makePageViewsFolder, startNginxBalancer, startRedis } from "../tests/harness/real-servers";
import { postSignup, visitorFields } from "../tests/harness/signup-client";
import { StandInClient, WEBHOOK_PATH } from "../tests/harness/stand-in";
import { percentile, RIG_SECRET, startSignupRig } from "./lib/processes";
import { postSignups } from "./lib/signups";
import { compressionLevels } from "./lib/compression-levels";
import { firstFrame, type FirstFrame } from "./lib/first-frame";
import { firstTap, type FirstTap } from "./lib/first-tap";
import { freshAndCachedFirstByte } from "./lib/fresh-render";
import { neighbours } from "./lib/neighbours";
import { bodilessLoad, type BodilessKind } from "./lib/bodiless-load";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TAPS = Number(process.env.BENCH_TAPS ?? 7);
const FRAMES = Number(process.env.BENCH_FRAMES ?? 11);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECTIONS = ["levels", "render", "get", "signup", "flood", "frame", "tap", "neighbours"] as const;
type Section = (typeof SECTIONS)[number];
const { values: options } = parseArgs({ options: { only: { type: "string" } } });
const chosen = new Set((options.only?.split(",") ?? SECTIONS) as Section[]);
for (const section of chosen) if (!SECTIONS.includes(section)) throw new Error(`--only: no section ${section}`);
const CONNECTIONS = 20;
const ACCEPT = "gzip, deflate, br";
const children: ChildProcess[] = [];

type LoadResult = { tool: string; perSecond: number; p50: number; p99: number; non2xx: number; cpuMicros?: number };

/**
 * The CPU time (user and system) process `pid` has used, in µs, from /proc (Linux's clock ticks, 10 ms each): per
 * request over a whole run, what the server costs whatever else shares the cores.
 */
function cpuMicrosOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** wrk prints "50%  1.23ms"; returns milliseconds. */
function wrkLatency(output: string, label: string): number {
  const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(output);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

/** Each request of a run asks for `/?fbclid=<unique>`, as the visitors of a campaign link do. */
const UNIQUE_CLICK_ID_LUA = `counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/?fbclid=IwAR" .. counter .. "x" .. math.random(1000000000))
end`;

/** `pid`: the server's process, whose CPU per request is measured over the run (not its warm-up). */
async function load(url: string, { uniqueClickIds = false, pid = 0 } = {}): Promise<LoadResult> {
  const wrk = findProgram("wrk");
  if (wrk) {
    const script = uniqueClickIds ? ["-s", writeTempFile("click-ids.lua", UNIQUE_CLICK_ID_LUA)] : [];
    const args = [
      "-t1",
      `-c${CONNECTIONS}`,
      `-d${SECONDS}s`,
      "--latency",
      ...script,
      "-H",
      `Accept-Encoding: ${ACCEPT}`,
      url,
    ];
    execFileSync(wrk, ["-t1", `-c${CONNECTIONS}`, "-d2s", ...script, "-H", `Accept-Encoding: ${ACCEPT}`, url]); // warm-up
    const cpuBefore = pid ? cpuMicrosOf(pid) : 0;
    const output = execFileSync(wrk, args, { encoding: "utf8" });
    const cpu = pid ? cpuMicrosOf(pid) - cpuBefore : NaN;
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
    return {
      tool: "wrk",
      perSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]),
      p50: wrkLatency(output, "50%"),
      p99: wrkLatency(output, "99%"),
      non2xx,
      cpuMicros: cpu / Number(/(\d+) requests in/.exec(output)?.[1]),
    };
  }
  let clickId = 0;
  const options = {
    url,
    connections: CONNECTIONS,
    headers: { "accept-encoding": ACCEPT },
    requests: uniqueClickIds
      ? [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: `/?fbclid=IwAR${++clickId}` }) }]
      : undefined,
  };
  await autocannon({ ...options, duration: 2 });
  const cpuBefore = pid ? cpuMicrosOf(pid) : 0;
  const result = await autocannon({ ...options, duration: SECONDS });
  const cpu = pid ? cpuMicrosOf(pid) - cpuBefore : NaN;
  return {
    tool: "autocannon",
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    cpuMicros: cpu / result.requests.total,
  };
}

function writeTempFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "bench-script-")), name);
  writeFileSync(file, text);
  return file;
}

function spawnChild(command: string, args: string[], options: Parameters<typeof spawn>[2] = {}): ChildProcess {
  const child = spawn(command, args, { stdio: "ignore", ...options });
  children.push(child);
  return child;
}

async function bareServer(gzipFile: string): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  // Node leaves out the body of an answer to HEAD by itself; a revalidation with its ETag is answered 304.
  const code = `
    const body = require("node:fs").readFileSync(${JSON.stringify(gzipFile)});
    const etag = '"bare"';
    const headers = { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip", "content-length": body.length, vary: "Accept-Encoding", etag };
    require("node:http").createServer((req, res) => {
      if (req.headers["if-none-match"] === etag) { res.writeHead(304, { etag, vary: "Accept-Encoding" }); return res.end(); }
      res.writeHead(200, headers); res.end(body);
    }).listen(${port}, "127.0.0.1");`;
  const child = spawnChild(process.execPath, ["-e", code]);
  const url = `http://127.0.0.1:${port}/`;
  await waitForOk(url);
  return { url, pid: child.pid! };
}

async function nginxServer(dir: string): Promise<string | null> {
  const nginx = findProgram("nginx");
  if (!nginx) return null;
  const port = await freePort();
  writeFileSync(
    join(dir, "nginx.conf"),
    // As many workers as deploy/nginx.conf (auto): the two are compared.
    `daemon off; worker_processes auto; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp; proxy_temp_path ${dir}/tmp; fastcgi_temp_path ${dir}/tmp; uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
  server { listen 127.0.0.1:${port}; root ${dir}/www; gzip_static on; location / { default_type text/html; } }
}`,
  );
  mkdirSync(join(dir, "tmp"), { recursive: true });
  spawnChild(nginx, ["-p", dir, "-c", join(dir, "nginx.conf")]);
  const url = `http://127.0.0.1:${port}/`;
  await waitForOk(url);
  return url;
}

/** HEAD / and a 304 to GET / on a lone instance beside bare node:http, alternated RUNS times. */
async function printBodiless(origin: string, appPid: number, bare: { url: string; pid: number }) {
  const measure = async (url: string, kind: BodilessKind, pid: number) => {
    const settings = { connections: CONNECTIONS, acceptEncoding: ACCEPT };
    await bodilessLoad(url, kind, { ...settings, seconds: 2 }); // warm-up
    const cpuBefore = cpuMicrosOf(pid);
    const result = await bodilessLoad(url, kind, { ...settings, seconds: SECONDS });
    return { ...result, cpuMicros: (cpuMicrosOf(pid) - cpuBefore) / (result.perSecond * SECONDS) };
  };
  console.log(
    `\nHEAD / and GET / revalidated with the ETag last seen, ${CONNECTIONS} connections, ${SECONDS} s each, alternated`,
  );
  console.log("| answer | (a) our server, req/s per run | (b) bare node:http | a/b per run | CPU µs, (a); (b) |");
  console.log("|---|---|---|---|---|");
  for (const kind of ["HEAD", "304"] as const) {
    const runs: Array<[Awaited<ReturnType<typeof measure>>, Awaited<ReturnType<typeof measure>>]> = [];
    for (let run = 0; run < RUNS; run++)
      runs.push([await measure(`${origin}/`, kind, appPid), await measure(bare.url, kind, bare.pid)]);
    const column = (pick: (pair: (typeof runs)[number]) => number, digits = 0) =>
      runs.map((pair) => fmt(pick(pair), digits)).join(" / ");
    const statuses = JSON.stringify(runs[0]![0].statuses);
    console.log(
      `| ${kind} (our statuses, run 1: ${statuses}) | ${column(([a]) => a.perSecond)} | ${column(([, b]) => b.perSecond)} | ` +
        `${column(([a, b]) => a.perSecond / b.perSecond, 2)} | ${column(([a]) => a.cpuMicros)}; ${column(([, b]) => b.cpuMicros)} |`,
    );
  }
}

async function coldStart(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const [node, ...serveArgs] = SERVE_COMMAND;
  const child = spawnChild(node!, serveArgs, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: "production", HOST: "127.0.0.1", PORT: String(port) },
  });
  await waitForOk(`http://127.0.0.1:${port}/`, { timeoutMs: 20_000 });
  const elapsed = performance.now() - started;
  child.kill("SIGTERM");
  return elapsed;
}

/** Queued mode's promise (decision 016): the visitor waits for Redis, never for the webhook. */
const QUEUED_P99_BOUND_MS = 50;
const SLOW_WEBHOOK_MS = 300;

/** Latencies of `count` requests sent one at a time, sorted. */
async function sequential(count: number, send: (index: number) => Promise<Response>): Promise<number[]> {
  const latencies: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    const response = await send(index);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`answer ${response.status}`);
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

function postOne(origin: string, tag: string, index: number): Promise<Response> {
  const email = `seq-${tag}-${index}@exemplo.com.br`;
  return postSignup(
    origin,
    { ...visitorFields(RIG_SECRET), email, hcaptchaToken: `P1_bench-${tag}-${index}` },
    {
      data: true,
    },
  );
}

/** p50 of 300 sign-ups one at a time, beside the webhook's own round trip: what our server adds. */
async function signupLatency(rig: Awaited<ReturnType<typeof startSignupRig>>, tag: string) {
  const webhookUrl = rig.standInOrigin + WEBHOOK_PATH;
  const direct = percentile(
    await sequential(300, (index) =>
      fetch(webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: `d${tag}${index}@exemplo.com` }),
      }),
    ),
    50,
  );
  const throughApp = percentile(await sequential(300, (index) => postOne(rig.app.origin, tag, index)), 50);
  return { direct, throughApp };
}

/**
 * A webhook that takes 300 ms: direct mode's visitor waits for it; queued mode's
 * only for Redis. Sign-ups one at a time (p50, p99) and at 50 concurrent.
 */
async function queuedFigures(redisUrl: string, tag: string) {
  const slow = { status: 200, text: "ok", delayMs: SLOW_WEBHOOK_MS };
  const directRig = await startSignupRig({ REDIS_URL: redisUrl });
  await new StandInClient(directRig.standInOrigin).setWebhook(slow);
  const direct = await sequential(30, (index) => postOne(directRig.app.origin, `qd${tag}`, index));
  await directRig.stop();

  const queuedRig = await startSignupRig({ REDIS_URL: redisUrl, RELAY_MODE: "queued" });
  await new StandInClient(queuedRig.standInOrigin).setWebhook(slow);
  const queued = await sequential(300, (index) => postOne(queuedRig.app.origin, `q${tag}`, index));
  const concurrent = await postSignups(queuedRig.app.origin, 3_000, 50, `qc${tag}`);
  await queuedRig.stop();
  return {
    directP50: percentile(direct, 50),
    queuedP50: percentile(queued, 50),
    queuedP99: percentile(queued, 99),
    concurrent,
  };
}

const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
/** p10 / p50 / p90 of sorted figures. */
const spread = (sorted: number[], digits = 1) =>
  [10, 50, 90].map((p) => fmt(percentile(sorted, p), digits)).join(" / ");

function printLevels(html: Uint8Array) {
  console.log(`\nCompression of the page's HTML (${html.byteLength.toLocaleString("en")} B), median and slowest of 15`);
  console.log("| codec | level | time ms (median) | time ms (slowest) | bytes |");
  console.log("|---|---:|---:|---:|---:|");
  for (const figure of compressionLevels(html)) {
    console.log(
      `| ${figure.codec} | ${figure.level} | ${fmt(figure.medianMs, 2)} | ${fmt(figure.maxMs, 2)} | ${figure.bytes.toLocaleString("en")} |`,
    );
  }
}

/** A fresh render adds at most this to the first byte (docs/performance.md, "The server"). */
const FRESH_RENDER_BOUND_MS = 10;

async function printRender(origin: string) {
  const { fresh, cached } = await freshAndCachedFirstByte(origin, ACCEPT);
  const added = percentile(fresh, 50) - percentile(cached, 50);
  console.log(`\nFirst byte of GET / (Accept-Encoding: ${ACCEPT}), 20 rounds, p10 / p50 / p90 ms`);
  console.log("| render | first byte |");
  console.log("|---|---:|");
  console.log(`| fresh (the shared render just expired) | ${spread(fresh)} |`);
  console.log(`| cached (right after) | ${spread(cached)} |`);
  console.log(
    `| added by a fresh render, p50 | ${fmt(added, 1)} ms (bound ≤ ${FRESH_RENDER_BOUND_MS} ms, ${added <= FRESH_RENDER_BOUND_MS ? "held" : "NOT held"}) |`,
  );
}

async function printGet(origin: string, appPid: number, html: Uint8Array, dir: string, pageViewsFolder: string) {
  // The same bytes for every server: the page as our server sends it, gzip-encoded.
  mkdirSync(join(dir, "www"));
  const { gzipSync } = await import("node:zlib");
  writeFileSync(join(dir, "www", "index.html"), html);
  writeFileSync(join(dir, "www", "index.html.gz"), gzipSync(html, { level: 9 }));
  const bare = await bareServer(join(dir, "www", "index.html.gz"));
  const nginxUrl = await nginxServer(dir);
  const balancer = findProgram("nginx") ? await startNginxBalancer([origin], { pageViewsFolder }) : null;
  try {
    // A lone instance beside bare node:http, and the shipped nginx beside nginx from disk, each pair alternating, RUNS
    // times: the median run of each.
    const runs: Record<"a" | "b" | "c" | "d", LoadResult[]> = { a: [], b: [], c: [], d: [] };
    for (let run = 0; run < RUNS; run++) {
      runs.a.push(await load(`${origin}/`, { pid: appPid }));
      runs.b.push(await load(bare.url, { pid: bare.pid }));
      if (nginxUrl && balancer) {
        runs.c.push(await load(nginxUrl));
        runs.d.push(await load(`${balancer.origin}/`));
      }
    }
    const median = (results: LoadResult[]) =>
      results.length ? results.sort((x, y) => x.perSecond - y.perSecond)[results.length >> 1]! : null;
    const perRun = (results: LoadResult[]) => results.map((result) => fmt(result.perSecond)).join(", ");
    for (const [pair, over, under] of [
      ["a/b", runs.a, runs.b],
      ["d/c", runs.d, runs.c],
    ] as const)
      if (over.length)
        console.log(
          `${pair} per run: ${over.map((result, run) => fmt(result.perSecond / under[run]!.perSecond, 3)).join(", ")}`,
        );
    const cpu = (results: LoadResult[]) => results.map((result) => fmt(result.cpuMicros!)).join(", ");
    console.log(`CPU µs per request, per run: (a) ${cpu(runs.a)}; (b) ${cpu(runs.b)}`);
    const rows: Array<[string, LoadResult | null]> = [
      [`(a) our server, remix-serve (median of ${RUNS}: ${perRun(runs.a)})`, median(runs.a)],
      [`(b) bare node:http, same bytes (median of ${RUNS}: ${perRun(runs.b)})`, median(runs.b)],
      [`(c) nginx, same bytes from disk (median of ${RUNS}: ${perRun(runs.c)})`, median(runs.c)],
      [`(d) shipped nginx in front of (a) (median of ${RUNS}: ${perRun(runs.d)})`, median(runs.d)],
      ["    our server, /healthz (pipeline floor)", await load(`${origin}/healthz`)],
      ["    our server, /?fbclid=<unique per request>", await load(`${origin}/`, { uniqueClickIds: true })],
      [
        "    (d) with /?fbclid=<unique per request>",
        balancer ? await load(`${balancer.origin}/`, { uniqueClickIds: true }) : null,
      ],
    ];
    const [a, b, c, d, , campaign] = rows.map(([, result]) => result);
    console.log(
      `\nGET / with Accept-Encoding: ${ACCEPT}, ${CONNECTIONS} connections, ${SECONDS} s each, tool: ${a!.tool}`,
    );
    console.log("| server | req/s | p50 ms | p99 ms | non-2xx |");
    console.log("|---|---:|---:|---:|---:|");
    for (const [name, result] of rows) {
      if (!result) console.log(`| ${name} | not installed | | | |`);
      else
        console.log(
          `| ${name} | ${fmt(result.perSecond)} | ${fmt(result.p50, 2)} | ${fmt(result.p99, 2)} | ${result.non2xx} |`,
        );
    }
    console.log(
      `\nratio a/b = ${fmt(a!.perSecond / b!.perSecond, 3)} (target ≥ 0.5)${c ? `, a/c = ${fmt(a!.perSecond / c.perSecond, 3)}` : ""}` +
        `${c && d ? `, d/c = ${fmt(d.perSecond / c.perSecond, 3)} (target ≥ 0.8)` : ""}`,
    );
    console.log(`unique fbclid / plain / = ${fmt(campaign!.perSecond / a!.perSecond, 3)}`);
    await printBodiless(origin, appPid, bare);
  } finally {
    await balancer?.stop();
  }
}

async function printSignup(rig: Awaited<ReturnType<typeof startSignupRig>>) {
  const { app } = rig;
  const tag = Date.now().toString(36);
  const { direct, throughApp } = await signupLatency(rig, tag);
  const concurrent = await postSignups(app.origin, 3_000, 50, `c${tag}`);

  // The same sign-up with its state in Redis: the ledger, limits and budgets cost round trips.
  const redis = findProgram("redis-server") ? await startRedis() : null;
  let withRedis: {
    added: number;
    page: LoadResult;
    concurrent: Awaited<ReturnType<typeof postSignups>>;
    queued: Awaited<ReturnType<typeof queuedFigures>>;
  } | null = null;
  if (redis) {
    const redisRig = await startSignupRig({ REDIS_URL: redis.url });
    // wrk runs synchronously: measured first, so no kept-alive socket goes stale meanwhile.
    const page = await load(`${redisRig.app.origin}/`);
    const latency = await signupLatency(redisRig, `r${tag}`);
    const concurrent = await postSignups(redisRig.app.origin, 3_000, 50, `rc${tag}`);
    await redisRig.stop();
    const queued = await queuedFigures(redis.url, tag);
    withRedis = { added: latency.throughApp - latency.direct, page, concurrent, queued };
    await redis.stop();
  }
  const starts = [await coldStart(), await coldStart(), await coldStart()].sort((a, b) => a - b);

  console.log("\n| sign-up | figure |");
  console.log("|---|---:|");
  console.log(`| webhook round trip alone, p50 (one at a time) | ${fmt(direct, 2)} ms |`);
  console.log(`| sign-up through our server, p50 (one at a time) | ${fmt(throughApp, 2)} ms |`);
  console.log(`| added latency, p50 | ${fmt(throughApp - direct, 2)} ms |`);
  console.log(
    `| throughput at 50 concurrent | ${fmt(concurrent.perSecond)} sign-ups/s (p50 ${fmt(concurrent.p50, 1)} ms, p99 ${fmt(concurrent.p99, 1)} ms, answers ${JSON.stringify(concurrent.statuses)}) |`,
  );
  console.log(`| cold start to first 200 on / (median of 3) | ${fmt(starts[1]!)} ms |`);
  if (withRedis) {
    console.log(`| with REDIS_URL: added latency, p50 | ${fmt(withRedis.added, 2)} ms |`);
    console.log(
      `| with REDIS_URL: throughput at 50 concurrent | ${fmt(withRedis.concurrent.perSecond)} sign-ups/s (p50 ${fmt(withRedis.concurrent.p50, 1)} ms, p99 ${fmt(withRedis.concurrent.p99, 1)} ms, answers ${JSON.stringify(withRedis.concurrent.statuses)}) |`,
    );
    console.log(
      `| with REDIS_URL: GET / | ${fmt(withRedis.page.perSecond)} req/s (p50 ${fmt(withRedis.page.p50, 2)} ms) |`,
    );
    const { queued } = withRedis;
    console.log(
      `| direct, webhook taking ${SLOW_WEBHOOK_MS} ms: sign-up p50 (one at a time) | ${fmt(queued.directP50, 1)} ms |`,
    );
    console.log(
      `| queued, webhook taking ${SLOW_WEBHOOK_MS} ms: sign-up p50 / p99 (one at a time) | ${fmt(queued.queuedP50, 2)} / ${fmt(queued.queuedP99, 2)} ms (bound: p99 ≤ ${QUEUED_P99_BOUND_MS} ms, ${queued.queuedP99 <= QUEUED_P99_BOUND_MS ? "held" : "NOT held"}) |`,
    );
    console.log(
      `| queued: throughput at 50 concurrent, one instance | ${fmt(queued.concurrent.perSecond)} sign-ups/s (p50 ${fmt(queued.concurrent.p50, 1)} ms, p99 ${fmt(queued.concurrent.p99, 1)} ms, answers ${JSON.stringify(queued.concurrent.statuses)}) |`,
    );
  } else {
    console.log("| with REDIS_URL | redis-server not installed |");
  }
}

/** Event Timing reports nothing under 16 ms. */
const eventTiming = (ms: number) => (ms < 16 ? "< 16" : fmt(ms));

/** A sign-up's latency, one at a time, without and then while wrk floods GET / on the same instance at its limit. */
async function printFlood(origin: string) {
  const wrk = findProgram("wrk");
  if (!wrk) return console.log("\nflood: needs wrk (Debian's wrk), skipped");
  const tag = `flood-${Date.now().toString(36)}`;
  const quiet = await sequential(150, (index) => postOne(origin, `${tag}-quiet`, index));
  const flood = spawnChild(
    wrk,
    ["-t1", `-c${CONNECTIONS}`, `-d${SECONDS}s`, "-H", `Accept-Encoding: ${ACCEPT}`, `${origin}/`],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let output = "";
  flood.stdout!.on("data", (chunk: Buffer) => (output += chunk));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const flooded = await sequential(150, (index) => postOne(origin, `${tag}-flooded`, index));
  await new Promise((resolve) => flood.once("exit", resolve));
  const figures = (latencies: number[]) =>
    `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`;
  console.log(`\nA sign-up, one at a time (150 each): ${figures(quiet)} alone; ${figures(flooded)} while GET / is`);
  console.log(`flooded (${/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]} req/s, ${CONNECTIONS} connections)`);
}

async function printTap(origin: string) {
  const taps: FirstTap[] = [];
  for (let run = 0; run < TAPS; run++) taps.push(await firstTap(origin));
  const sorted = (key: keyof FirstTap) => taps.map((tap) => tap[key]).sort((a, b) => a - b);
  const row = (key: keyof FirstTap) => {
    const figures = sorted(key);
    return `${eventTiming(figures[0]!)} / ${eventTiming(percentile(figures, 50))} / ${eventTiming(figures.at(-1)!)}`;
  };
  console.log(`\nFirst tap on the e-mail field, 390×844 touch, CPU 4× slower, ${TAPS} runs: min / median / max ms`);
  console.log("| from the tap to | ms |");
  console.log("|---|---:|");
  console.log(`| the paint after it (its click's) | ${row("tapToPaint")} |`);
  console.log(
    `| the slowest keystroke's paint, typing on at once (the keystroke's own wait) | ${row("worstKeyToPaint")} |`,
  );
  console.log(`| the enhanced form on screen (input ready) | ${row("tapToReady")} |`);
}

async function printFrame(origin: string) {
  const frames: FirstFrame[] = [];
  for (let run = 0; run < FRAMES; run++) frames.push(await firstFrame(origin));
  const row = (key: keyof FirstFrame) => {
    const figures = frames.map((frame) => frame[key]).sort((a, b) => a - b);
    return `${fmt(figures[0]!)} / ${fmt(percentile(figures, 50))} / ${fmt(figures.at(-1)!)}`;
  };
  console.log(`\nThe first frame of /, 390×844, CPU 4× slower, ${FRAMES} loads: min / median / max ms`);
  console.log("| up to the first contentful paint | ms |");
  console.log("|---|---:|");
  console.log(`| the first contentful paint | ${row("firstContentfulPaint")} |`);
  console.log(`| the longest main-thread task | ${row("longestTask")} |`);
  console.log(`| style | ${row("style")} |`);
  console.log(`| layout | ${row("layout")} |`);
  console.log(`| paint | ${row("paint")} |`);
}

async function printNeighbours() {
  console.log(
    "\nA bot at 50 forged posts a second and 20 genuine visitors behind one address (each presses twice at most)",
  );
  console.log(
    "| visitors | signed up on the first press | on the second | refused twice | what refusals read | bot posts | siteverify calls |",
  );
  console.log("|---|---:|---:|---:|---|---:|---:|");
  for (const javascript of [true, false]) {
    const figures = await neighbours({ javascript });
    console.log(
      `| ${javascript ? "with" : "without"} JavaScript | ${figures.firstPress} | ${figures.secondPress} | ${figures.refusedTwice} | ${JSON.stringify(figures.refusals)} | ${figures.botPosts} | ${figures.siteverifyCalls} |`,
    );
  }
}

async function main() {
  if (!existsSync(`${ROOT}build/index.js`)) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
  const dir = mkdtempSync(join(tmpdir(), "bench-"));
  chmodSync(dir, 0o755); // nginx's workers run unprivileged and must read the page
  // The views the shipped nginx logs in (d) are counted by the app, as in compose.yaml.
  const pageViewsFolder = makePageViewsFolder();
  const rig = await startSignupRig({ PAGE_VIEWS_FOLDER: pageViewsFolder });
  const { origin } = rig.app;
  try {
    const response = await fetch(`${origin}/`, { headers: { "accept-encoding": "identity" } });
    const html = new Uint8Array(await response.arrayBuffer());
    if (chosen.has("levels")) printLevels(html);
    if (chosen.has("render")) await printRender(origin);
    if (chosen.has("get")) await printGet(origin, rig.app.process.pid!, html, dir, pageViewsFolder);
    if (chosen.has("signup")) await printSignup(rig);
    if (chosen.has("flood")) await printFlood(origin);
    if (chosen.has("frame")) await printFrame(origin);
    if (chosen.has("tap")) await printTap(origin);
    if (chosen.has("neighbours")) await printNeighbours();
  } finally {
    await rig.stop();
    for (const child of children) child.kill("SIGTERM");
    for (const folder of [dir, pageViewsFolder]) rmSync(folder, { recursive: true, force: true });
  }
}

await main();
