import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { RunningApp } from "../harness/app-server";
import { DEPLOY_NGINX_CONF } from "../harness/real-servers";
import { postSignup, signUp } from "../harness/signup-client";
import { builtServerSuite, expectBalancerPage, filledForm } from "./suite";
import { SHARED_PAGE_CACHE_CONTROL } from "~/page/page-cache.server";
import { FORM_REACHED_PATH } from "~/insight/paths";
import { SIGNUP_TIME_BUDGET_MS } from "~/server/graceful-stop.server";
import { content } from "~/content";

/**
 * The shipped balancer (deploy/nginx.conf) answers the landing page from a
 * one-second cache, so a launch spike costs the apps a render a second; what
 * is per visitor or live never comes from it. What reached the app is read
 * from its own access log (remix-serve prints `GET /?a 200 …` per request).
 */

const METRICS_TOKEN = "balancer-metrics-token-0123456789";
const { standIn, start, startBalancer, serverForAll, visitor } = builtServerSuite((standIn) => ({
  WEBHOOK_URL: standIn.webhookUrl,
  METRICS_TOKEN,
  TRUST_PROXY: "1",
}));
/** The instance behind each test's own balancer (whose page cache starts empty). */
const app = serverForAll();

type Deployment = { app: RunningApp; origin: string; startedLogging: number; cachedFiles: () => string[] };

async function appBehindBalancer(): Promise<Deployment> {
  const { origin, cachedFiles } = await startBalancer([app().origin]);
  return { app: app(), origin, startedLogging: app().output().length, cachedFiles };
}

/** The requests the app logged since it stood behind the balancer, once one sent after them all shows up. */
async function requestsReceived({ app, origin, startedLogging }: Deployment): Promise<string[]> {
  const marker = `/healthz?marker=${randomUUID()}`;
  expect((await fetch(origin + marker)).status).toBe(200);
  await app.printed(new RegExp(`^GET ${marker.replace("?", "\\?")} `, "m"));
  return app
    .output()
    .slice(startedLogging)
    .split("\n")
    .map((line) => /^(?:GET|HEAD|POST) \S+/.exec(line)?.[0])
    .filter((line): line is string => line !== undefined && !line.includes("marker="));
}

/** The page's renders the app was asked for: GET / with any query but a data request. */
const pageRequests = (lines: string[]) =>
  lines.filter((line) => /^GET \/(\?|$)/.test(line) && !line.includes("_data="));

/** What visitors of a campaign link ask for: click ids and utm_* tags, each visitor's own. */
const campaignLink = (index: number) =>
  ["/", `/?utm_source=tv&utm_content=${index}`, `/?fbclid=IwAR${index}`, `/?gclid=Cj0K${index}&utm_medium=cpc`][
    index % 4
  ]!;
/** Browsers' spellings of "brotli or gzip": one entry serves them all. */
const BROTLI_SPELLINGS = ["gzip, deflate, br", "gzip, deflate, br, zstd", "br, gzip"];

/**
 * What a request may try to put in the page's entry: data requests in the spellings the app decodes, and other
 * spellings of the page's path (nginx merges the slashes; the app would render the form posting to `//?index`).
 */
const NOT_THE_PAGE = [
  "/?_d%61ta=routes%2F_index",
  "/?%5F%64ata=routes%2F_index",
  "/?_dat%61=routes%2F_index",
  "//",
  "///?utm_source=x",
];
/** The page's own form, as the bare address renders it. */
const PAGE_FORM = 'action="/?index"';
const ENCODINGS = ["br", "gzip", "identity"];

async function getPage(origin: string, path: string, encoding: string, asked = "") {
  const response = await fetch(origin + path, { headers: { "accept-encoding": encoding, "x-answer": asked } });
  const body = await response.text();
  return {
    status: response.status,
    cache: response.headers.get("x-cache-status"),
    body,
  };
}

/** An instance that is not the app: `answer` handles every request (a bug, a proxy's page, a count stuck). */
async function stubInstance(answer: RequestListener): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("what the balancer's page cache may keep", () => {
  it("after data requests and other spellings of its path, keeps one entry per encoding the apps would choose, shared by every spelling of Accept-Encoding: the page its own address renders", async () => {
    const { origin, cachedFiles } = await appBehindBalancer();
    for (const path of NOT_THE_PAGE)
      for (const encoding of ENCODINGS) {
        const answer = await getPage(origin, path, encoding);
        expect([path, encoding, answer.status, answer.body.includes(PAGE_FORM)]).toEqual([path, encoding, 200, true]);
      }
    const answers: Array<[string, string | null, string | null, boolean]> = [];
    for (const acceptEncoding of ["gzip, deflate, br", "gzip", "identity", "br, gzip", "*", "br;q=0, gzip"]) {
      const response = await fetch(`${origin}/`, { headers: { "accept-encoding": acceptEncoding } });
      expect(response.headers.get("vary")).toBe("Accept-Encoding");
      const page = (await response.text()).includes(PAGE_FORM);
      const bypassed = response.headers.get("x-cache-status") === "BYPASS" ? "BYPASS" : "cache";
      answers.push([acceptEncoding, response.headers.get("content-encoding"), bypassed, page]);
    }
    expect(answers).toEqual([
      ["gzip, deflate, br", "br", "cache", true],
      ["gzip", "gzip", "cache", true],
      ["identity", null, "cache", true],
      ["br, gzip", "br", "cache", true],
      ["*", "gzip", "cache", true],
      // Refuses brotli: the app negotiates it, and nothing is stored or served from the cache.
      ["br;q=0, gzip", "gzip", "BYPASS", true],
    ]);
    expect(cachedFiles()).toHaveLength(ENCODINGS.length);
  });

  it("an instance's 500, 429, 404 or unmarked 200 on / is passed on, never stored; its marked page is", async () => {
    // It answers as its `x-answer` header says, with none of the app's marks unless asked for them.
    const instance = await stubInstance((request, response) => {
      const asked = String(request.headers["x-answer"] ?? "");
      const json = asked === "json";
      response.writeHead(Number(/^\d+$/.test(asked) ? asked : 200), {
        "Content-Type": json ? "application/json" : "text/html; charset=utf-8",
        ...(asked === "marked" ? { "Cache-Control": SHARED_PAGE_CACHE_CONTROL } : {}),
      });
      response.end(json ? '{"poisoned":true}' : `<!DOCTYPE html><title>${asked}</title>`);
    });
    const balancer = await startBalancer([instance.origin]);
    try {
      for (const asked of ["500", "429", "404", "json", "html"])
        for (const encoding of ENCODINGS) {
          const answer = await getPage(balancer.origin, "/", encoding, asked);
          expect([asked, answer.status, answer.cache]).toEqual([
            asked,
            /^\d+$/.test(asked) ? Number(asked) : 200,
            "MISS",
          ]);
        }
      expect(balancer.cachedFiles()).toEqual([]);
      await getPage(balancer.origin, "/", "br", "marked");
      expect(balancer.cachedFiles()).toHaveLength(1);
    } finally {
      await instance.close();
    }
  });
});

describe("the balancer's page cache", () => {
  it("200 visitors of / at once, from campaign links and browsers of every kind, cost the app a render a second", async () => {
    const deployment = await appBehindBalancer();
    const { origin } = deployment;
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const response = await fetch(origin + campaignLink(index), {
          headers: { "accept-encoding": BROTLI_SPELLINGS[index % BROTLI_SPELLINGS.length]! },
        });
        await response.arrayBuffer();
        return { status: response.status, encoding: response.headers.get("content-encoding") };
      }),
    );
    const secondsSpanned = Math.ceil((Date.now() - started) / 1000);
    expect(answers.every((answer) => answer.status === 200 && answer.encoding === "br")).toBe(true);
    // One render for the first entry, then at most one per second the burst lasted.
    expect(pageRequests(await requestsReceived(deployment)).length).toBeLessThanOrEqual(1 + secondsSpanned);
  });

  it("never answers a form result, a data request, a probe or a scrape from the cache", async () => {
    const deployment = await appBehindBalancer();
    const { origin } = deployment;
    expect((await fetch(`${origin}/`)).status).toBe(200); // the page is in the cache from now on
    const sent = [
      () => postSignup(origin, { ...visitor(), email: "ana@exemplo.com.br" }),
      () => fetch(`${origin}/?_data=routes%2F_index`),
      () => fetch(`${origin}/healthz`),
      () => fetch(`${origin}/readyz`),
      // Answered before Remix, so absent from its log: a sign-up shows in the very next scrape.
      () => fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }),
    ];
    for (const send of [...sent, ...sent]) {
      const response = await send();
      expect(response.headers.get("x-cache-status") ?? "not cached").toMatch(/^(BYPASS|not cached)$/);
    }
    const received = await requestsReceived(deployment);
    for (const line of ["POST /?index", "GET /?_data=routes%2F_index", "GET /healthz", "GET /readyz"]) {
      expect([line, received.filter((request) => request === line).length]).toEqual([line, 2]);
    }
  });
});

describe("the balancer's own answers", () => {
  it("a post over its body limit is its own 413 in Portuguese, leading back to the form, and never reaches an app; its pages are not addresses of the site: asked for from outside, the site's 404 page, from an app", async () => {
    const deployment = await appBehindBalancer();
    const response = await fetch(`${deployment.origin}/?index`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `email=${"a".repeat(17 * 1024)}`,
    });
    await expectBalancerPage(response, 413, "Envio inválido");
    const page = await fetch(`${deployment.origin}/__balancer/busy.html`);
    expect([page.status, await page.text()]).toEqual([404, expect.stringContaining(content.notFound.title)]);
    const received = await requestsReceived(deployment);
    expect([received.includes("POST /?index"), received.includes("GET /__balancer/busy.html")]).toEqual([false, true]);
  });
});

describe("the balancer's connections to the apps", () => {
  it("an instance that is gone costs visitors nothing: its refused connections go to another, GETs and sign-ups alike", async () => {
    const gone = await start();
    const balancer = await startBalancer([app().origin, gone.origin]);
    gone.process.kill("SIGKILL");
    await gone.stop();
    const answers: number[] = [];
    for (let index = 0; index < 10; index++) {
      answers.push((await fetch(`${balancer.origin}/?visita=${index}`)).status);
      const email = `depois-da-queda${index}@exemplo.com.br`;
      answers.push(
        (await postSignup(balancer.origin, filledForm(email), { client: `203.0.113.${100 + index}` })).status,
      );
    }
    expect(answers).toEqual(Array(20).fill(200));
    expect(standIn.relayedEmails()).toHaveLength(10);
  });

  it("one sign-up whose webhook is slow gives no other visitor a 502 or 504 meanwhile, and its own visitor the app's answer once it comes", async () => {
    const balancer = await startBalancer([app().origin, (await start()).origin]);
    standIn.webhook = { status: 200, text: "ok", hold: true };
    const slow = signUp(balancer.origin, filledForm("lenta@exemplo.com.br"), { client: "203.0.113.99" });
    await standIn.arrived("webhook");
    standIn.webhook = { status: 200, text: "ok" };
    const others: number[] = [];
    for (let index = 0; index < 10; index++) {
      others.push((await fetch(`${balancer.origin}/?visita=${index}`)).status);
      const fields = filledForm(`outra${index}@exemplo.com.br`);
      others.push((await signUp(balancer.origin, fields, { client: `203.0.113.${index}` })).status);
    }
    expect(others).toEqual(Array(20).fill(200));
    standIn.releaseWebhook();
    const { status, result } = await slow;
    expect([status, result.notice.title]).toEqual([200, "Cadastro realizado!"]);
  });

  it("beacons whose count never comes are let go (204), not held for nginx's default minute, and never take an instance out", async () => {
    // Their beacon path never answers, while they answer the rest at once.
    let heldCounts = 0;
    const instances = await Promise.all(
      [0, 1].map(() =>
        stubInstance((request, response) => {
          if (request.url?.startsWith("/__insight/")) return void heldCounts++;
          response.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
          response.end("<!DOCTYPE html><title>ok</title>");
        }),
      ),
    );
    const balancer = await startBalancer(instances.map((instance) => instance.origin));
    try {
      const beacon = () => fetch(`${balancer.origin}${FORM_REACHED_PATH}`, { method: "POST", body: "utm_campaign=c" });
      expect((await Promise.all([beacon(), beacon()])).map((response) => response.status)).toEqual([204, 204]);
      expect(heldCounts).toBeGreaterThan(0);
      const answers: number[] = [];
      for (let index = 0; index < 4; index++) {
        answers.push((await fetch(`${balancer.origin}/?utm_campaign=c${index}`)).status);
        answers.push((await fetch(`${balancer.origin}/?index`, { method: "POST", body: "email=x" })).status);
      }
      expect(answers).toEqual(Array(8).fill(200));
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });

  // nginx counts an answer that does not come within proxy_read_timeout against its instance, whatever
  // proxy_next_upstream says: shorter than the apps' own answers, it took instances out for being slow, and under load
  // all of them ("no live upstreams", 502 for everyone).
  it("waits for an answer far longer than the apps take to give one: only an instance that stopped answering is taken out", () => {
    const readTimeout = /proxy_read_timeout (\d+)s;/.exec(readFileSync(DEPLOY_NGINX_CONF, "utf8"))![1]!;
    expect(Number(readTimeout) * 1000).toBeGreaterThanOrEqual(3 * SIGNUP_TIME_BUDGET_MS);
  });

  // A connection the app closed just as nginx sent a post on it was reset, which nginx does not retry for a POST (a
  // 502). Which side closes an idle connection first is each one's keep-alive: nginx's, and the one the app writes
  // into its answers.
  it("closes an idle connection to an app itself, before the app would, so no post meets a closing one", async () => {
    const kept = /^\s*keepalive_timeout (\d+)s;/m.exec(readFileSync(DEPLOY_NGINX_CONF, "utf8"))![1]!;
    const appKeeps = /timeout=(\d+)/.exec(
      (await fetch(`${app().origin}/healthz`)).headers.get("keep-alive") ?? "",
    )![1]!;
    expect(Number(kept)).toBeLessThan(Number(appKeeps));
  });
});
