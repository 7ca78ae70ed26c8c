import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { PageCache, preferredEncoding } from "~/page/page-cache.server";
import { clientAddress, PEER_ADDRESS_HEADER } from "~/server/client-address.server";
import { maskEmail } from "~/server/log.server";
import { documentCsp, inlineScriptHashes } from "~/server/security-headers.server";
import { CallGate } from "~/signup/captcha.server";
import { FallbackQuestions, parseAnswer } from "~/signup/question.server";
import { SignedTokens } from "~/signup/signed-tokens.server";
import { memoryState } from "~/state/memory-state.server";
import { solveQuestion } from "../harness/question-solver";

const PAGE =
  '<html><head><script>window.__ctx={"a":1}</script><script type="module" src="/build/x.js"></script></head><body>olá</body></html>';

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
    const cache = new PageCache();
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

  it("answers 304 to an If-None-Match list holding its ETag, or `*`, with no body", () => {
    const cache = new PageCache();
    const etag = cache.respond(documentRequest(() => PAGE)).headers.get("etag")!;
    for (const ifNoneMatch of [`W/"other", ${etag}`, "*"]) {
      const revalidated = cache.respond(documentRequest(() => PAGE, { "if-none-match": ifNoneMatch }));
      expect([revalidated.status, revalidated.body]).toEqual([304, null]);
    }
  });

  it("renders again once the render is older than its time to live; form results and error pages, every time", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const cache = new PageCache();
    const render = vi.fn(() => PAGE);
    cache.respond(documentRequest(render));
    vi.advanceTimersByTime(1001);
    cache.respond(documentRequest(render));
    vi.useRealTimers();
    expect(render).toHaveBeenCalledTimes(2);
    const unshared = [
      cache.respond(documentRequest(render, {}, false)),
      cache.respond(documentRequest(render, {}, false)),
    ];
    expect([render.mock.calls.length, unshared[0]!.headers.get("cache-control")]).toEqual([4, "no-store"]);
  });

  it.each([
    ["gzip, deflate, br", "br"],
    ["br;q=0, gzip", "gzip"],
    ["gzip;q=0", "identity"],
    ["br;q=0, gzip;q=0.5, zstd, *;q=0.1", "gzip"],
    ["zstd", "identity"],
    ["*", "gzip"],
    ["gzip;q=0, *", "identity"],
    [null, "identity"],
    ["identity", "identity"],
  ])("Accept-Encoding %j → %s", (header, encoding) => {
    expect(preferredEncoding(header)).toBe(encoding);
  });
});

describe("the content security policy", () => {
  it("allows exactly the inline scripts of the page, by hash, and hCaptcha's frames and calls", () => {
    const expected = createHash("sha256").update('window.__ctx={"a":1}').digest("base64");
    expect(inlineScriptHashes(PAGE)).toEqual([expected]);
    const csp = documentCsp(PAGE).split("; ");
    const hcaptcha = "https://hcaptcha.com https://*.hcaptcha.com";
    expect(csp).toContain(`script-src 'self' 'sha256-${expected}' ${hcaptcha}`);
    expect(csp).toEqual(expect.arrayContaining([`frame-src ${hcaptcha}`, `connect-src 'self' ${hcaptcha}`]));
    expect(csp).toEqual(expect.arrayContaining(["frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'"]));
    expect(csp).toContain("form-action 'self'");
    expect(csp.join("; ")).not.toContain("unsafe-eval");
    expect(csp.join("; ")).not.toMatch(/script-src[^;]*unsafe-inline/);
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
    const questions = new FallbackQuestions(
      new SignedTokens("s".repeat(32)),
      memoryState().limit({ name: "answers", points: 3, durationSeconds: 600, whenAway: "refuse" }),
      "",
    );
    for (let i = 0; i < 50; i++) {
      const { text, token } = questions.ask();
      expect(text).toMatch(/^Quanto é [a-zê]+ (mais|menos) [a-zê]+\?$/);
      const answer = solveQuestion(text);
      expect(answer).toBeGreaterThanOrEqual(0);
      expect(questions.check(token, String(answer))).toBe("correct");
    }
  });

  it.each([
    [0, "203.0.113.9", "198.51.100.7"],
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
  ])(
    "TRUST_PROXY=%i and X-Forwarded-For %j → client %j (without trusted proxies, the socket's)",
    (trusted, header, expected) => {
      const headers = new Headers({ "x-forwarded-for": header, [PEER_ADDRESS_HEADER]: "198.51.100.7" });
      expect(clientAddress(headers, trusted)).toBe(expected);
    },
  );

  it.each([
    ["ana.souza@exemplo.com.br", "a***@exemplo.com.br"],
    ["a@b.co", "a***@b.co"],
    ["sem-arroba", "***"],
    ["", ""],
  ])("masks %j as %j", (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });
});

describe("the siteverify gate", () => {
  /** A call that ends when the test says so, recording that it started. */
  function heldCall(started: string[], name: string) {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    return { call: () => (started.push(name), ended.then(() => name)), end };
  }

  it("runs at most its capacity at once; a freed turn goes to the lowest rank, and to the newest among equals", async () => {
    const gate = new CallGate(2);
    const started: string[] = [];
    const later = Date.now() + 60_000;
    const a = heldCall(started, "a");
    const b = heldCall(started, "b");
    const running = [gate.run(0, later, a.call), gate.run(0, later, b.call)];
    const waiters = [
      ["flood-1", 5],
      ["flood-2", 5],
      ["person", 1],
      ["flood-3", 5],
    ].map(([name, rank]) => {
      const held = heldCall(started, name as string);
      return { held, done: gate.run(rank as number, later, held.call) };
    });
    expect(started).toEqual(["a", "b"]);
    a.end();
    await running[0];
    expect(started).toEqual(["a", "b", "person"]);
    b.end();
    await running[1];
    expect(started).toEqual(["a", "b", "person", "flood-3"]);
    for (const { held } of waiters) held.end();
    expect(await Promise.all(waiters.map(({ done }) => done))).toEqual(["flood-1", "flood-2", "person", "flood-3"]);
  });

  it("a call that gets no turn before its deadline is told so and never runs", async () => {
    const gate = new CallGate(1);
    const started: string[] = [];
    const held = heldCall(started, "a");
    const running = gate.run(0, Date.now() + 60_000, held.call);
    expect(await gate.run(0, Date.now() + 20, async () => "b")).toBe("no turn");
    held.end();
    expect(await running).toBe("a");
    expect(await gate.run(0, Date.now() + 20, async () => "c")).toBe("c");
  });
});
