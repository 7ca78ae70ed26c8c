import { connect, type Socket } from "node:net";

export type BodilessKind = "HEAD" | "304";
type BodilessResult = { perSecond: number; statuses: Record<number, number> };

/**
 * Answers a second to requests whose answer has no body, on `connections` keep-alive connections for `seconds`:
 * `HEAD /`, or `GET /` revalidated with the ETag last seen (304; the 200 that brings a new ETag is read whole).
 * wrk and autocannon cannot: they wait for the body a HEAD's Content-Length announces.
 */
export async function bodilessLoad(
  url: string,
  kind: BodilessKind,
  { connections, seconds, acceptEncoding }: { connections: number; seconds: number; acceptEncoding: string },
): Promise<BodilessResult> {
  const { host, hostname, port } = new URL(url);
  const statuses: Record<number, number> = {};
  let etag = "";
  let running = true;
  const request = () =>
    `${kind === "HEAD" ? "HEAD" : "GET"} / HTTP/1.1\r\nHost: ${host}\r\nAccept-Encoding: ${acceptEncoding}\r\n` +
    (kind === "304" && etag ? `If-None-Match: ${etag}\r\n` : "") +
    "\r\n";

  const drive = (socket: Socket) => {
    let pending: Buffer = Buffer.alloc(0);
    let bodyLeft = -1; // -1: reading a head
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (bodyLeft < 0) {
          const end = pending.indexOf("\r\n\r\n");
          if (end < 0) return;
          const head = pending.subarray(0, end).toString("latin1");
          pending = pending.subarray(end + 4);
          const status = Number(head.slice(9, 12));
          statuses[status] = (statuses[status] ?? 0) + 1;
          etag = /\r\netag: *([^\r]+)/i.exec(head)?.[1] ?? etag;
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          bodyLeft = kind === "HEAD" || status === 304 ? 0 : length;
        }
        const taken = Math.min(bodyLeft, pending.length);
        pending = pending.subarray(taken);
        bodyLeft -= taken;
        if (bodyLeft > 0) return;
        bodyLeft = -1;
        if (!running) return void socket.end();
        socket.write(request());
      }
    });
  };

  const sockets = Array.from({ length: connections }, () => {
    const socket = connect(Number(port), hostname, () => socket.write(request()));
    drive(socket);
    return socket;
  });
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  running = false;
  const elapsed = (performance.now() - started) / 1000;
  for (const socket of sockets) socket.destroy();
  const answered = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  return { perSecond: answered / elapsed, statuses };
}
