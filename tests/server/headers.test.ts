import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";

let app: RunningApp;
let proxied: RunningApp;

beforeAll(async () => {
  [app, proxied] = await Promise.all([startApp({}), startApp({ TRUST_PROXY: "1" })]);
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

  it("a form result is never stored by a cache: it may echo the visitor's address", async () => {
    const response = await fetch(`${app.origin}/?index`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=ana%40exemplo",
    });
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});
