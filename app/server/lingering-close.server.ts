import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/** How long the rest of a refused upload is read after the answer, before the connection closes. */
const LINGER_MS = 2_000;

const requestOf = new WeakMap<Socket, IncomingMessage>();

/**
 * Closes a connection only once the request's body has arrived, or LINGER_MS
 * after the answer, as nginx's lingering close does: closed with bytes unread,
 * the kernel answers them with a reset that can overtake the answer itself (a
 * 5 MB upload read a broken connection instead of its 413, 5 times in 100).
 * Call for each request before it is answered.
 */
export function lingerBeforeClosing(request: IncomingMessage): void {
  const socket = request.socket as Socket & { destroySoon(): void };
  const known = requestOf.has(socket);
  requestOf.set(socket, request);
  if (known) return;
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    const current = requestOf.get(socket);
    if (!current || current.complete) return destroySoon();
    // The answer is out: what still arrives is read and dropped (whoever read the body
    // before would hold it back, unread), then the connection closes.
    const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    current.once("end", () => {
      clearTimeout(timer);
      destroySoon();
    });
    current.removeAllListeners("data");
    current.resume();
  };
}
