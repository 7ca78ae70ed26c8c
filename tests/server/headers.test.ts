import { get, type IncomingMessage } from "node:http";
import { decodeHTML } from "entities";
import { describe, expect, it } from "vitest";
import { content } from "~/content";
import { documentCsp } from "~/server/security-headers.server";
import { scrapeMetrics, sumOf } from "../harness/metrics";
import { builtServerSuite } from "./suite";

/**
 * The edge as the built server shows it, one case per seam: the page answered before Remix, a Remix-rendered 404,
 * and the headers every answer carries; and the head a link preview or a home screen reads. Each spelling the edge
 * decides alone: unit/guards; a refusal's answer: unit/edge-answers; the policy's words: unit/helpers.
 */

const PUBLIC_URL = "https://prevly.example";
const METRICS_TOKEN = "headers-metrics-token-0123456789";
const HTTPS = { "x-forwarded-proto": "https" };

const { serverForAll } = builtServerSuite();
/** Behind a proxy, at its public address; and one that trusts no proxy. */
const [app, untrusting] = [serverForAll(() => ({ METRICS_TOKEN, TRUST_PROXY: "1", PUBLIC_URL })), serverForAll()];

/** The headers every answer carries (docs/security.md), then two it must not (no Cross-Origin-Opener-Policy:
 * measured out, a renderer process of its own on every arrival, for nothing this page holds), then HSTS. */
const HEADERS = ["x-content-type-options", "referrer-policy", "x-frame-options", "permissions-policy"];
const securityOf = (headers: Headers) =>
  [...HEADERS, "x-powered-by", "cross-origin-opener-policy", "strict-transport-security"].map((name) =>
    headers.get(name),
  );
const secured = (hsts: boolean) => [
  ...["nosniff", "strict-origin-when-cross-origin", "DENY", expect.stringContaining("camera=()"), null, null],
  hsts ? "max-age=63072000; includeSubDomains" : null,
];

/** What WhatsApp still shows as a preview. */
const MAX_SHARE_IMAGE_BYTES = 300 * 1024;
const { title: TITLE, shareImageAlt: ALT } = content.meta;

/** Width and height from a PNG's header (its IHDR chunk), or null when it is no PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | null {
  const signature = "89504e470d0a1a0a";
  if (bytes.subarray(0, 8).toString("hex") !== signature || bytes.subarray(12, 16).toString() !== "IHDR") return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** A page's title, its meta tags' content by name or property, and its links' addresses by rel. */
function headOf(html: string) {
  const tags = [...html.matchAll(/<(meta|link) ([^>]*)>/g)].map(([, kind, attributes]) => {
    const pairs = [...attributes!.matchAll(/([\w:-]+)="([^"]*)"/g)].map(([, name, value]) => [name, value]);
    return { kind, ...Object.fromEntries(pairs) } as Record<string, string>;
  });
  const meta = tags
    .filter((tag) => tag.kind === "meta")
    .map((tag) => [tag.property ?? tag.name, decodeHTML(tag.content ?? "")]);
  const links = tags.filter((tag) => tag.kind === "link").map((tag) => [tag.rel, tag.href]);
  const title = decodeHTML(/<title>([^<]*)<\/title>/.exec(html)?.[1] ?? "");
  return { title, meta: Object.fromEntries(meta) as Record<string, string>, links: Object.fromEntries(links) };
}

describe("the built server's answers", () => {
  it("the page, its data and the 404 carry the security headers, HSTS only over HTTPS as the trusted proxy says; the page's policy hashes its own inline scripts", async () => {
    const page = await fetch(`${app().origin}/`, { headers: HTTPS });
    expect(securityOf(page.headers)).toEqual(secured(true));
    expect(page.headers.get("content-security-policy")).toBe(documentCsp(await page.text()));
    expect(securityOf((await fetch(`${untrusting().origin}/`, { headers: HTTPS })).headers)).toEqual(secured(false));
    const data = await fetch(`${app().origin}/?_data=routes%2F_index`, { headers: HTTPS });
    expect([data.status, securityOf(data.headers), data.headers.get("content-security-policy")]).toEqual([
      200,
      secured(true),
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ]);
  });

  it("an unknown path is the 404 page Remix renders, under the page's policy, logged with its path", async () => {
    const missing = await fetch(`${app().origin}/planos/antigos?utm_source=x`);
    const html = await missing.text();
    expect([missing.status, securityOf(missing.headers)]).toEqual([404, secured(false)]);
    expect(html).toContain("Oops! Page not found");
    expect(missing.headers.get("content-security-policy")).toBe(documentCsp(html));
    await app().printed(/"event":"not-found","path":"\/planos\/antigos"/);
  });

  it("only the page bears the shared cache's mark; every other answer, however it was asked for, is no-store", async () => {
    const cacheControl = async (path: string, method = "GET") => {
      const answer = await fetch(app().origin + path, { method, redirect: "manual" });
      return [path, method, answer.status, answer.headers.get("cache-control")];
    };
    expect(await cacheControl("/?utm_source=news")).toEqual([
      "/?utm_source=news",
      "GET",
      200,
      "public, max-age=0, s-maxage=1",
    ]);
    // A data request spelled otherwise, a refusal at the edge, the 404, a probe, a static file's redirect, the one
    // spelling of a path, and a form's result (it may echo the visitor's address).
    for (const [path, method, status] of [
      ["/?_d%61ta=routes%2F_index", "GET", 200],
      ["/?_data=root", "GET", 400],
      ["/nao/existe", "GET", 404],
      ["/healthz", "GET", 200],
      ["/build", "GET", 301],
      ["///?utm_source=x", "GET", 301],
      ["/?index", "POST", 415],
    ] as const) {
      expect(await cacheControl(path, method)).toEqual([path, method, status, "no-store"]);
    }
  });
});

describe("the head", () => {
  it("carries title, description, theme colour, favicon and a 180×180 home-screen icon; without PUBLIC_URL a plain card, and no picture, canonical address or og:url", async () => {
    const { origin } = untrusting();
    const { title, meta, links } = headOf(await (await fetch(`${origin}/`)).text());
    expect(title).toBe(TITLE);
    expect(meta).toMatchObject({
      description: expect.stringContaining("previdência privada"),
      "og:title": TITLE,
      "og:locale": "pt_BR",
      "twitter:card": "summary",
      "theme-color": expect.stringMatching(/^#[0-9a-f]{6}$/i),
    });
    for (const property of ["og:image", "og:image:width", "og:image:height", "og:image:alt", "og:url"])
      expect(meta, property).not.toHaveProperty(property);
    expect(links).not.toHaveProperty("canonical");
    expect((await fetch(origin + links.icon)).headers.get("content-type")).toContain("image/svg+xml");
    const touchIcon = await fetch(origin + links["apple-touch-icon"]);
    expect(touchIcon.headers.get("content-type")).toBe("image/png");
    expect(pngSize(Buffer.from(await touchIcon.arrayBuffer()))).toEqual({ width: 180, height: 180 });
  });
});

describe("the page answered before Remix", () => {
  type Raw = { status: number; headers: string[]; body: Buffer };
  /** The answer as sent: its header lines in order (but Date; names in one case, as HTTP reads them) and its bytes, still compressed. */
  const send = (method: string, path: string, headers: Record<string, string>) =>
    new Promise<Raw>((resolve, reject) => {
      get(`${app().origin}${path}`, { method, headers }, async (response: IncomingMessage) => {
        const lines: string[] = [];
        for (let index = 0; index < response.rawHeaders.length; index += 2)
          if (response.rawHeaders[index] !== "Date")
            lines.push(`${response.rawHeaders[index]!.toLowerCase()}: ${response.rawHeaders[index + 1]}`);
        resolve({ status: response.statusCode!, headers: lines, body: Buffer.concat(await response.toArray()) });
      }).on("error", reject);
    });
  /** remix-serve logs "GET /?… 200 …" for each request that reached express, which an early answer never does. */
  const reachedRemix = (query: string) =>
    app()
      .output()
      .split("\n")
      .filter((line) => new RegExp(`^(GET|HEAD) /\\?${query} `).test(line)).length;
  /** Asked until Remix renders the page afresh (the last render has aged past its second), and kept. */
  async function fromRemix(method: string, headers: Record<string, string>): Promise<Raw> {
    for (;;) {
      const before = reachedRemix("utm_source=remix");
      const answer = await send(method, "/?utm_source=remix", headers);
      await app().printed(/^GET \/healthz /m);
      if ((await fetch(`${app().origin}/healthz`)).ok && reachedRemix("utm_source=remix") > before) return answer;
    }
  }

  it("is byte for byte what Remix sent for the same render, 304 and HEAD included, and counted as a view", async () => {
    // Every view, whatever its labels: a campaign no sign-up carried yet is counted as (other).
    const views = async () => sumOf(await scrapeMetrics(app().origin, METRICS_TOKEN), "page_views_total");
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

  it("a render asked for with a forged Host, and the answers shared from it, carry PUBLIC_URL's link preview alone: a 1200×630 PNG under 300 KB, its size and alt text, og:url and canonical", async () => {
    const forged = (await fromRemix("GET", { host: "atacante.exemplo" })).body.toString();
    const shared = await (await fetch(`${app().origin}/`)).text();
    expect([forged, shared].filter((html) => html.includes("atacante.exemplo"))).toEqual([]);
    const { meta, links } = headOf(forged);
    expect(links.canonical).toBe(`${PUBLIC_URL}/`);
    expect(meta).toMatchObject({
      "og:url": `${PUBLIC_URL}/`,
      "og:image": `${PUBLIC_URL}/og-image.png`,
      "og:image:type": "image/png",
      "og:image:alt": ALT,
      "twitter:image:alt": ALT,
      "twitter:card": "summary_large_image",
    });
    const image = await fetch(`${app().origin}/og-image.png`);
    // Crawlers and browsers may keep it an hour; a new picture reaches them within that.
    const headers = ["content-type", "cache-control"].map((name) => image.headers.get(name));
    expect([image.status, ...headers]).toEqual([200, "image/png", "public, max-age=3600"]);
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(bytes.byteLength).toBeLessThan(MAX_SHARE_IMAGE_BYTES);
    expect(pngSize(bytes)).toEqual({ width: 1200, height: 630 });
    expect([meta["og:image:width"], meta["og:image:height"]]).toEqual(["1200", "630"]);
  });
});
