import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";

let app: RunningApp;
/** Behind a proxy, at its public address. */
let proxied: RunningApp;
const PUBLIC_URL = "https://prevly.example";

beforeAll(async () => {
  [app, proxied] = await Promise.all([startApp({}), startApp({ TRUST_PROXY: "1", PUBLIC_URL: PUBLIC_URL })]);
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

  it("every inline script of the page is covered by a hash in the policy", async () => {
    const response = await fetch(`${app.origin}/`);
    const html = await response.text();
    const csp = response.headers.get("content-security-policy")!;
    const { createHash } = await import("node:crypto");
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    expect(inline.length).toBeGreaterThan(0);
    for (const body of inline) {
      expect(csp).toContain(`'sha256-${createHash("sha256").update(body).digest("base64")}'`);
    }
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
    for (const path of [
      "/?_data=routes%2F_index",
      "/?_d%61ta=routes%2F_index",
      "/?%5F%64ata=routes%2F_index",
      "/?_dat%61=routes%2F_index",
      "/?_data=root",
      "/nao/existe",
      "/healthz",
    ]) {
      expect([path, (await fetch(app.origin + path)).headers.get("cache-control")]).toEqual([path, "no-store"]);
    }
  });

  it("an answer that names no Cache-Control is no-store: a static file's redirect, and the one spelling of a path", async () => {
    const folder = await fetch(`${app.origin}/build`, { redirect: "manual" });
    expect([folder.status, folder.headers.get("cache-control")]).toEqual([301, "no-store"]);
    for (const [path, location] of [
      ["//", "/"],
      ["///?utm_source=x", "/?utm_source=x"],
      ["//evil.example/x", "/evil.example/x"],
    ]) {
      const answer = await fetch(app.origin + path, { redirect: "manual" });
      expect([path, answer.status, answer.headers.get("location"), answer.headers.get("cache-control")]).toEqual([
        path,
        301,
        location,
        "no-store",
      ]);
    }
  });

  it("a form posted from another site is refused in Portuguese and logged, by script or not; from the site's Host, its public address or an opaque origin it reaches the sign-up", async () => {
    const post = (to: RunningApp, origin: string, query = "") =>
      fetch(`${to.origin}/?index${query}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin },
        body: "email=ana%40exemplo.com.br",
      });
    // fetch sends the address's own Host whatever it is told; a proxy in front sends its own.
    const postAs = async (host: string, origin: string) => {
      const answer = await request(`${app.origin}/?index`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin, host },
        body: "email=ana%40exemplo.com.br",
      });
      await answer.body.dump();
      return { status: answer.statusCode };
    };
    for (const query of ["", "&_data=routes%2F_index"]) {
      const refused = await post(app, "http://127.0.0.1:1", query);
      expect([refused.status, await refused.text()]).toEqual([
        403,
        "Envio recusado: o formulário veio de outro endereço. Abra a página e envie de novo.",
      ]);
    }
    await app.printed(/"event":"origin-mismatch","origin":"http:\/\/127\.0\.0\.1:1"/);
    // The sign-up's pipeline answers them (without the page's signed fields, it takes each for a bot: a 200).
    const reached = [
      await post(app, app.origin),
      await post(app, "null"),
      await post(app, "null", "&_data=routes%2F_index"),
      // A proxy in front that sends the instance's own address as Host.
      await post(proxied, PUBLIC_URL),
      await post(proxied, PUBLIC_URL, "&_data=routes%2F_index"),
      // A proxy in front that names the scheme's default port in Host, or keeps the capitals a person typed.
      await postAs("prevly.example:443", "https://prevly.example"),
      await postAs("Prevly.Example", "http://prevly.example"),
    ];
    expect(reached.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);
    const otherPort = await postAs("prevly.example:443", "http://prevly.example");
    expect(otherPort.status).toBe(403);
    const elsewhere = await post(proxied, "https://prevly.example.evil.com");
    expect(elsewhere.status).toBe(403);
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
