import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";
import { logError } from "~/server/log.server";

/** A page view the shipped nginx answered, as its access log tells it: the page's query, its Referer and Host. */
export type LoggedView = { query: string; referer: string; host: string };

/**
 * Listens for the shipped nginx's page views (deploy/nginx.conf): one syslog datagram per view, over UDP at the
 * HTTP server's own address and port number, whose message is `{"query":…,"referer":…,"host":…}`. Anything else
 * arriving there is dropped. Alike views that arrive together are counted at once: a flood's are mostly alike (the
 * query carries only the campaign), and each count costs more than a datagram.
 */
export function receiveViews(address: AddressInfo, viewed: (view: LoggedView, views: number) => void): void {
  const socket = createSocket({ type: address.family === "IPv6" ? "udp6" : "udp4", recvBufferSize: 4 << 20 });
  const arrived = new Map<string, number>();
  const countArrived = () => {
    for (const [datagram, views] of arrived) {
      const view = loggedView(datagram);
      if (view) viewed(view, views);
    }
    arrived.clear();
  };
  socket.on("message", (datagram) => {
    // Node reads at most a few dozen datagrams before the event loop turns: the map stays small.
    if (arrived.size === 0) setImmediate(countArrived);
    const text = datagram.toString("utf8");
    arrived.set(text, (arrived.get(text) ?? 0) + 1);
  });
  // Views behind nginx go uncounted on this instance; the page and everything else still work.
  socket.on("error", (error) => logError("view-log-error", error, { port: address.port }));
  socket.bind(address.port, address.address);
  socket.unref();
}

/** The message after syslog's `<priority>timestamp tag: `, which holds no `{`. */
function loggedView(datagram: string): LoggedView | null {
  try {
    const view = JSON.parse(datagram.slice(datagram.indexOf("{"))) as Partial<LoggedView>;
    const { query, referer, host } = view;
    return typeof query === "string" && typeof referer === "string" && typeof host === "string"
      ? { query, referer, host }
      : null;
  } catch {
    return null;
  }
}
