import { isIP } from "node:net";

/** The socket's address, written by guards.server.ts over anything a client sent: remix-serve hands Remix no other. */
export const PEER_ADDRESS_HEADER = "x-landing-peer-address";

/** The bucket shared by every request whose client cannot be told: limits fail closed. */
const UNKNOWN_CLIENT = "unknown";

/** The socket's peer without trusted proxies, else the N-th X-Forwarded-For entry from the right; null if none. */
export function clientAddress(headers: Headers, trustedProxies: number): string | null {
  if (trustedProxies < 1) return normalizeAddress(headers.get(PEER_ADDRESS_HEADER) ?? "");
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  return normalizeAddress(hops[hops.length - trustedProxies] ?? "");
}

/** One spelling per address: brackets and ports dropped, IPv4-mapped IPv6 as IPv4, IPv6 lower-case and written out. */
function normalizeAddress(raw: string): string | null {
  let text = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  const version = isIP(text);
  if (version === 4) return text.split(".").map(Number).join(".");
  if (version !== 6) return null;
  const groups = expandIpv6(text.toLowerCase());
  const mapped = groups.slice(0, 6).join(":") === "0:0:0:0:0:ffff";
  if (mapped)
    return [groups[6]!, groups[7]!].flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 255]).join(".");
  return groups.join(":");
}

/** IPv4 whole, IPv6 per /64 (one home or cloud host gets a whole /64 to rotate through). */
export function clientKey(address: string | null): string {
  if (!address) return UNKNOWN_CLIENT;
  return address.includes(":") ? `${address.split(":").slice(0, 4).join(":")}::/64` : address;
}

/** "2001:db8::1" → eight groups, each without leading zeros; an IPv4 tail becomes two groups. */
function expandIpv6(address: string): string[] {
  let text = address;
  const ipv4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (ipv4Tail) {
    const [a, b, c, d] = ipv4Tail.split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, -ipv4Tail.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}

export function isHttps(request: Request, trustedProxies: number): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  if (trustedProxies < 1) return false;
  return request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}
