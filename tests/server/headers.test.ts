import { get, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";
import { scrapeMetrics, sumOf } from "../harness/metrics";

let app: RunningApp;
/** Behind a proxy, at its public address. */
let proxied: RunningApp;
const PUBLIC_URL = "https://prevly.example";
const METRICS_TOKEN = "headers-metrics-token-0123456789";

beforeAll(async () => {
  [app, proxied] = await Promise.all([
    startApp({ METRICS_TOKEN }),
    startApp({ TRUST_PROXY: "1", PUBLIC_URL: PUBLIC_URL }),
  ]);
});
afterAll(async () => {
  await Promise.all([app?.stop(), proxied?.stop()]);
});

function expectCommonHeaders(headers: Headers) {
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  expect(headers.get("permissions-policy")).toContain("camera=()");
  expect(headers.get("x-frame-options")).toBe("DENY");
  expect(headers.get("x-powered-by")).toBeNull();
  // Measured out: a renderer process of its own on every arrival, for nothing this page holds (docs/security.md).
  expect(headers.get("cross-origin-opener-policy")).toBeNull();
}

describe("security headers on the built server", () => {
  it("the page: a hash-based CSP that allows only our scripts and hCaptcha", async () => {
    const response = await fetch(`${app.origin}/`);
    expectCommonHeaders(response.headers);
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toMatch(
      /script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+ https:\/\/hcaptcha\.com https:\/\/\*\.hcaptcha\.com;/,
    );
    for (const directive of [
      "frame-src https://hcaptcha.com https://*.hcaptcha.com",
      "connect-src 'self' https://hcaptcha.com https://*.hcaptcha.com",
      "frame-ancestors 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "object-src 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(response.headers.get("strict-transport-security")).toBeNull();
  });

  it("data responses and the 404 carry them too", async () => {
    const data = await fetch(`${app.origin}/?_data=routes%2F_index`);
    expect(data.status).toBe(200);
    expectCommonHeaders(data.headers);
    expect(data.headers.get("content-security-policy")).toBe(
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    const missing = await fetch(`${app.origin}/nao/existe`);
    expect(missing.status).toBe(404);
    expectCommonHeaders(missing.headers);
    expect(missing.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("HSTS is sent only over HTTPS, as told by a trusted proxy", async () => {
    const https = { headers: { "x-forwarded-proto": "https" } };
    expect((await fetch(`${app.origin}/`, https)).headers.get("strict-transport-security")).toBeNull();
    expect((await fetch(`${proxied.origin}/`, https)).headers.get("strict-transport-security")).toBe(
      "max-age=63072000; includeSubDomains",
    );
    expect(
      (await fetch(`${proxied.origin}/?_data=routes%2F_index`, https)).headers.get("strict-transport-security"),
    ).toBe("max-age=63072000; includeSubDomains");
  });

  it("only the page bears the shared cache's mark; every other answer, however it was asked for, is no-store", async () => {
    expect((await fetch(`${app.origin}/?utm_source=news`)).headers.get("cache-control")).toBe(
      "public, max-age=0, s-maxage=1",
    );
    for (const path of ["/?_d%61ta=routes%2F_index", "/?_data=root", "/nao/existe", "/healthz"]) {
      expect([path, (await fetch(app.origin + path)).headers.get("cache-control")]).toEqual([path, "no-store"]);
    }
  });

  it("an answer that names no Cache-Control is no-store: a static file's redirect, and the one spelling of a path", async () => {
    for (const path of ["/build", "///?utm_source=x"]) {
      const answer = await fetch(app.origin + path, { redirect: "manual" });
      expect([path, answer.status, answer.headers.get("cache-control")]).toEqual([path, 301, "no-store"]);
    }
  });

  it("a form posted from another site is refused in Portuguese and logged; from PUBLIC_URL behind a proxy it reaches the sign-up (each spelling: unit/guards)", async () => {
    const post = (to: RunningApp, origin: string) =>
      fetch(`${to.origin}/?index`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin },
        body: "email=ana%40exemplo.com.br",
      });
    const refused = await post(app, "http://127.0.0.1:1");
    expect([refused.status, await refused.text()]).toEqual([
      403,
      "Envio recusado: o formulário veio de outro endereço. Abra a página e envie de novo.",
    ]);
    await app.printed(/"event":"origin-mismatch","origin":"http:\/\/127\.0\.0\.1:1"/);
    // The sign-up's pipeline answers it (without the page's signed fields, it takes it for a bot: a 200).
    expect((await post(proxied, PUBLIC_URL)).status).toBe(200);
  });

  it("a form result is never stored by a cache: it may echo the visitor's address", async () => {
    const response = await fetch(`${app.origin}/?index`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=ana%40exemplo",
    });
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("the page answered before Remix", () => {
  type Raw = { status: number; headers: string[]; body: Buffer };
  /** The answer as sent: its header lines in order (but Date; names in one case, as HTTP reads them) and its bytes, still compressed. */
  const send = (method: string, path: string, headers: Record<string, string>) =>
    new Promise<Raw>((resolve, reject) => {
      get(`${app.origin}${path}`, { method, headers }, async (response: IncomingMessage) => {
        const lines: string[] = [];
        for (let index = 0; index < response.rawHeaders.length; index += 2)
          if (response.rawHeaders[index] !== "Date")
            lines.push(`${response.rawHeaders[index]!.toLowerCase()}: ${response.rawHeaders[index + 1]}`);
        resolve({ status: response.statusCode!, headers: lines, body: Buffer.concat(await response.toArray()) });
      }).on("error", reject);
    });
  /** remix-serve logs "GET /?… 200 …" for each request that reached express, which an early answer never does. */
  const reachedRemix = (query: string) =>
    app
      .output()
      .split("\n")
      .filter((line) => new RegExp(`^(GET|HEAD) /\\?${query} `).test(line)).length;
  /** Asked until Remix renders the page afresh (the last render has aged past its second), and kept. */
  async function fromRemix(method: string, headers: Record<string, string>): Promise<Raw> {
    for (;;) {
      const before = reachedRemix("utm_source=remix");
      const answer = await send(method, "/?utm_source=remix", headers);
      await app.printed(/^GET \/healthz /m);
      if ((await fetch(`${app.origin}/healthz`)).ok && reachedRemix("utm_source=remix") > before) return answer;
    }
  }

  it("is byte for byte what Remix sent for the same render, 304 and HEAD included, and counted as a view", async () => {
    // Every view, whatever its labels: a campaign no sign-up carried yet is counted as (other).
    const views = async () => sumOf(await scrapeMetrics(app.origin, METRICS_TOKEN), "page_views_total");
    let counted = 0;
    for (const [method, headers] of [
      ["GET", { "accept-encoding": "gzip, br" }],
      ["GET", { "accept-encoding": "gzip" }],
      ["GET", {}],
      ["HEAD", { "accept-encoding": "br" }],
    ] as const) {
      const remix = await fromRemix(method, headers);
      const before = await views();
      const early = await send(method, "/?utm_source=early", headers);
      const etag = early.headers.find((line) => line.startsWith("etag: "))!.slice(6);
      const revalidated = await send(method, "/?utm_source=early", { ...headers, "if-none-match": `"x", ${etag}` });
      counted += (await views()) - before;
      expect(early).toEqual(remix);
      expect(revalidated.status).toBe(304);
    }
    expect(reachedRemix("utm_source=early")).toBe(0);
    expect(counted).toBe(6);
  });
});
