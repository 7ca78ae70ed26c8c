import { createHash } from "node:crypto";

const HCAPTCHA_HOSTS = "https://hcaptcha.com https://*.hcaptcha.com";

const COMMON_HEADERS: ReadonlyArray<[string, string]> = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "strict-origin-when-cross-origin"],
  ["X-Frame-Options", "DENY"],
  [
    "Permissions-Policy",
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()",
  ],
];

/** Data (JSON) responses are never rendered as a page: nothing may load from them. */
const DATA_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const HSTS = "max-age=63072000; includeSubDomains";

/** The page's policy, with the hashes of its own inline scripts (no nonce, so renders can be shared: decision 010). */
export function documentCsp(html: string, { development = false } = {}): string {
  const scriptHashes = inlineScriptHashes(html).map((hash) => `'sha256-${hash}'`);
  return [
    "default-src 'self'",
    `script-src ${["'self'", ...scriptHashes, HCAPTCHA_HOSTS].join(" ")}`,
    `style-src 'self' 'unsafe-inline' ${HCAPTCHA_HOSTS}`,
    `frame-src ${HCAPTCHA_HOSTS}`,
    // The dev server's live reload talks over a websocket.
    `connect-src 'self' ${HCAPTCHA_HOSTS}${development ? " ws:" : ""}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const [, attributes = "", body = ""] = match;
    if (/\bsrc\s*=/i.test(attributes) || body === "") continue;
    hashes.add(createHash("sha256").update(body, "utf8").digest("base64"));
  }
  return [...hashes];
}

export function setSecurityHeaders(headers: Headers, { csp, https }: { csp?: string; https: boolean }): void {
  for (const [name, value] of COMMON_HEADERS) headers.set(name, value);
  headers.set("Content-Security-Policy", csp ?? DATA_CSP);
  if (https) headers.set("Strict-Transport-Security", HSTS);
}
