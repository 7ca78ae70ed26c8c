import { clientKey } from "~/server/client-address.server";

/**
 * The network a sender's address belongs to, as carriers hand them out: an IPv6 /48 (one subscriber's site, and what a
 * tunnel broker gives anyone for free: 65,536 /64s), an IPv4 address alone (clientKey).
 */
export function networkKey(address: string | null): string {
  if (!address?.includes(":")) return clientKey(address);
  return `${address.split(":").slice(0, 3).join(":")}::/48`;
}
