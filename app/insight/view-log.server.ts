import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";
import { logError } from "~/server/log.server";

/** A page view the shipped nginx answered, as its access log tells it: the page's query, its Referer and Host. */
export type LoggedView = { query: string; referer: string; host: string };

/**
 * Listens for the shipped nginx's page views (deploy/nginx.conf): one syslog datagram per view, over UDP at the
 * HTTP server's own address and port number, whose message is `{"query":…,"referer":…,"host":…}`, the query holding
 * only the campaign. Anything else arriving there is dropped.
 */
export function receiveViews(address: AddressInfo, viewed: (view: LoggedView) => void): void {
  // Far more than Linux's default (about 200 KB, a few hundred datagrams): a flood of views waits here while the app
  // is busy. The host's net.core.rmem_max caps it.
  const socket = createSocket({ type: address.family === "IPv6" ? "udp6" : "udp4", recvBufferSize: 4 << 20 });
  socket.on("message", (datagram) => {
    const view = loggedView(datagram.toString("utf8"));
    if (view) viewed(view);
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
