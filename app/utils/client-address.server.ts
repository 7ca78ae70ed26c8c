const IP_SHAPE = /^[0-9a-f:.]{2,45}$/i;

/**
 * The visitor's address as told by the proxies we trust. remix-serve hides the
 * socket address, so without trusted proxies (TRUST_PROXY=0) there is none:
 * anyone could write X-Forwarded-For. With N trusted proxies the client is the
 * N-th entry from the right, the one our outermost proxy appended.
 */
export function clientAddress(headers: Headers, trustedProxies: number): string | null {
  if (trustedProxies < 1) return null;
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  const candidate = hops[hops.length - trustedProxies];
  return candidate && IP_SHAPE.test(candidate) ? candidate.toLowerCase() : null;
}

/** Whether the visitor reached us over HTTPS (directly or through a trusted proxy). */
export function isHttps(request: Request, trustedProxies: number): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  if (trustedProxies < 1) return false;
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  return proto === "https";
}
