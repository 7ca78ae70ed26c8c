import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { ChallengeBook, parseAnswer } from "~/utils/challenge.server";
import { clientAddress, isHttps } from "~/utils/client-address.server";
import { ExpiringSet } from "~/utils/expiring-set.server";
import { maskEmail } from "~/utils/log.server";
import { PageCache, preferredEncoding } from "~/utils/page-cache.server";
import { RateLimiter } from "~/utils/rate-limit.server";
import { documentCsp, inlineScriptHashes } from "~/utils/security-headers.server";

const PAGE = '<html><head><script>window.__ctx={"a":1}</script><script type="module" src="/build/x.js"></script></head><body>olá</body></html>';

describe("the page cache", () => {
  const documentRequest = (render: () => string, headers: Record<string, string> = {}, shareable = true) => ({
    request: new Request("http://localhost/?utm_source=x", { headers }),
    status: 200,
    headers: new Headers(),
    shareable,
    https: false,
    development: false,
    render,
  });

  it("renders a shareable page once per second and serves it compressed with an ETag", async () => {
    const cache = new PageCache(1000);
    const render = vi.fn(() => PAGE);
    const brotli = cache.respond(documentRequest(render, { "accept-encoding": "gzip, deflate, br" }));
    const gzip = cache.respond(documentRequest(render, { "accept-encoding": "gzip" }));
    const plain = cache.respond(documentRequest(render));
    expect(render).toHaveBeenCalledTimes(1);
    expect(brotli.headers.get("content-encoding")).toBe("br");
    expect(brotliDecompressSync(Buffer.from(await brotli.arrayBuffer())).toString()).toBe(`<!DOCTYPE html>${PAGE}`);
    expect(gunzipSync(Buffer.from(await gzip.arrayBuffer())).toString()).toBe(`<!DOCTYPE html>${PAGE}`);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(`<!DOCTYPE html>${PAGE}`);
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    expect(plain.headers.get("content-length")).toBe(String(Buffer.byteLength(`<!DOCTYPE html>${PAGE}`)));
    expect(plain.headers.get("etag")).toBe(brotli.headers.get("etag"));
  });

  it("answers 304 to a matching If-None-Match", () => {
    const cache = new PageCache(1000);
    const etag = cache.respond(documentRequest(() => PAGE)).headers.get("etag")!;
    const revalidated = cache.respond(documentRequest(() => PAGE, { "if-none-match": etag }));
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toBeNull();
  });

  it("renders again once the render is older than its time to live", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const cache = new PageCache(1000);
    const render = vi.fn(() => PAGE);
    cache.respond(documentRequest(render));
    vi.advanceTimersByTime(1001);
    cache.respond(documentRequest(render));
    expect(render).toHaveBeenCalledTimes(2);
    vi.useRealTimers();
  });

  it("never stores form results or error pages", () => {
    const cache = new PageCache(1000);
    const render = vi.fn(() => PAGE);
    const first = cache.respond(documentRequest(render, {}, false));
    cache.respond(documentRequest(render, {}, false));
    expect(render).toHaveBeenCalledTimes(2);
    expect(first.headers.get("cache-control")).toBe("no-store");
  });

  it.each([
    ["gzip, deflate, br", "br"],
    ["br;q=0, gzip", "gzip"],
    ["gzip;q=0", "identity"],
    ["*", "gzip"],
    [null, "identity"],
    ["identity", "identity"],
  ])("Accept-Encoding %j → %s", (header, encoding) => {
    expect(preferredEncoding(header)).toBe(encoding);
  });
});

describe("the content security policy", () => {
  it("allows exactly the inline scripts of the page, by hash", () => {
    const expected = createHash("sha256").update('window.__ctx={"a":1}').digest("base64");
    expect(inlineScriptHashes(PAGE)).toEqual([expected]);
    const csp = documentCsp(PAGE);
    expect(csp).toContain(`script-src 'self' 'sha256-${expected}' https://hcaptcha.com https://*.hcaptcha.com;`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });
});

describe("parsing helpers", () => {
  it.each([
    ["7", 7],
    [" sete ", 7],
    ["Três", 3],
    ["tres", 3],
    ["quatorze", 14],
    ["duas", 2],
    ["sete e meio", null],
    ["", null],
    ["-1", null],
  ])("the answer %j reads as %j", (typed, value) => {
    expect(parseAnswer(typed)).toBe(value);
  });

  it("questions are arithmetic written in words, with non-negative answers", () => {
    const book = new ChallengeBook("s".repeat(32));
    for (let i = 0; i < 50; i++) {
      const { question, token } = book.create();
      expect(question).toMatch(/^Quanto é [a-zê]+ (mais|menos) [a-zê]+\?$/);
      expect(token.split(".")).toHaveLength(3);
    }
  });

  it.each([
    [0, "203.0.113.9", null],
    [1, "203.0.113.9", "203.0.113.9"],
    [1, "198.51.100.1, 203.0.113.9", "203.0.113.9"],
    [2, "198.51.100.1, 203.0.113.9", "198.51.100.1"],
    [3, "198.51.100.1, 203.0.113.9", null],
    [1, "not-an-address", null],
    [1, "2001:DB8::1", "2001:db8:0:0:0:0:0:1"],
    [1, "203.0.113.9:8080", "203.0.113.9"],
    [1, "[2001:db8::1]:443", "2001:db8:0:0:0:0:0:1"],
    [1, "::ffff:203.0.113.9", "203.0.113.9"],
    [1, "203.0.113.09", null],
  ])("TRUST_PROXY=%i and X-Forwarded-For %j → client %j", (trusted, header, expected) => {
    expect(clientAddress(new Headers({ "x-forwarded-for": header }), trusted)).toBe(expected);
  });

  it("knows HTTPS from the URL, or from X-Forwarded-Proto only behind a trusted proxy", () => {
    const behindProxy = new Request("http://localhost/", { headers: { "x-forwarded-proto": "https" } });
    expect(isHttps(behindProxy, 0)).toBe(false);
    expect(isHttps(behindProxy, 1)).toBe(true);
    expect(isHttps(new Request("https://prevly.com.br/"), 0)).toBe(true);
  });

  it.each([
    ["ana.souza@exemplo.com.br", "a***@exemplo.com.br"],
    ["a@b.co", "a***@b.co"],
    ["sem-arroba", "***"],
    ["", ""],
  ])("masks %j as %j", (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });
});

describe("bounded memory", () => {
  it("a rate limiter refills over its window", () => {
    const limiter = new RateLimiter(2, 1000);
    expect([limiter.take("a", 0), limiter.take("a", 0), limiter.take("a", 0)]).toEqual([true, true, false]);
    expect(limiter.take("a", 499)).toBe(false);
    expect(limiter.take("a", 500)).toBe(true);
    expect(limiter.take("b", 500)).toBe(true);
  });

  it("a rate limiter forgets the oldest keys beyond its size", () => {
    const limiter = new RateLimiter(1, 60_000, 2);
    limiter.take("a", 0);
    limiter.take("b", 0);
    limiter.take("c", 0);
    expect(limiter.take("a", 0)).toBe(true);
    expect(limiter.take("c", 0)).toBe(false);
  });

  it("an expiring set forgets members after their time and beyond its size", () => {
    const set = new ExpiringSet(1000, 2);
    set.add("a", 0);
    expect(set.has("a", 999)).toBe(true);
    expect(set.has("a", 1000)).toBe(false);
    set.add("b", 0);
    set.add("c", 0);
    set.add("d", 0);
    expect([set.has("b", 1), set.has("c", 1), set.has("d", 1)]).toEqual([false, true, true]);
  });
});
