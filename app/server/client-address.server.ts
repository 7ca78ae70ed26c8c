import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

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

/** One spelling per address: brackets, ports and zones dropped, IPv4-mapped IPv6 as IPv4, IPv6 written out. */
function normalizeAddress(raw: string): string | null {
  let text = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  // isIP first: ipaddr.js also reads forms no client sends (octal, "127.1").
  return isIP(text) ? ipaddr.process(text.split("%")[0]!).toNormalizedString() : null;
}

/** IPv4 whole, IPv6 per /64 (one home or cloud host gets a whole /64 to rotate through). */
export function clientKey(address: string | null): string {
  if (!address) return UNKNOWN_CLIENT;
  return address.includes(":") ? `${address.split(":").slice(0, 4).join(":")}::/64` : address;
}

/** The fields of a fetch Request the edge reads; a Node request answered before Remix passes them without building one. */
export type RequestFields = { method: string; url: string; headers: Pick<Headers, "get" | "has"> };

export function isHttps(request: RequestFields, trustedProxies: number): boolean {
  if (request.url.startsWith("https:")) return true;
  if (trustedProxies < 1) return false;
  return request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}
