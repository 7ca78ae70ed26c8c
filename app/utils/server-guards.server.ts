import http from "node:http";
import { APP_ROOT } from "./app-root.server";
import { PEER_ADDRESS_HEADER } from "./client-address.server";
import { logEvent } from "./log.server";

/** The methods the site answers; Remix cannot even build a Request for TRACE or TRACK. */
const ANSWERED_METHODS = new Set(["GET", "HEAD", "POST"]);
/** remix-serve's own default when PORT is unset. */
const DEFAULT_PORT = 3000;
const INSTALLED = Symbol.for("landing.serverGuards");

/**
 * remix-serve cannot be customised (no middleware, no error handler), so the
 * guards it lacks are installed when it imports the build, before it listens:
 * - it finds `public/` and `build/` from the working directory: we move there;
 * - it turns `PORT=` into port 0 (a random port): empty means unset, so 3000;
 * - it hands Remix no socket address: the peer's is passed on in a header of
 *   ours, so clients can be limited without a proxy in front;
 * - an odd method (TRACE) throws inside Remix and express prints a stack per
 *   request: anything but GET, HEAD and POST is answered 405 before Remix;
 * - an error nobody caught is logged as one JSON line instead of ending the
 *   process and every sign-up in flight with it.
 */
export function installServerGuards(): void {
  const registry = globalThis as typeof globalThis & { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return; // the dev server re-imports the build
  registry[INSTALLED] = true;

  process.chdir(APP_ROOT);

  const createServer = http.createServer;
  http.createServer = ((...args: Parameters<typeof http.createServer>) => {
    const listener = args.find((arg) => typeof arg === "function") as http.RequestListener | undefined;
    const options = args.find((arg) => typeof arg === "object") as http.ServerOptions | undefined;
    const server = createServer(options ?? {}, (request, response) => {
      // Overwrites whatever a client sent under this name.
      request.headers[PEER_ADDRESS_HEADER] = request.socket.remoteAddress ?? "";
      if (ANSWERED_METHODS.has(request.method ?? "")) return listener?.(request, response);
      response.writeHead(405, {
        Allow: [...ANSWERED_METHODS].join(", "),
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "no-store",
        Connection: "close",
      });
      response.end("Method Not Allowed");
    });
    const listen = server.listen.bind(server) as (...listenArgs: unknown[]) => http.Server;
    server.listen = ((...listenArgs: unknown[]) => {
      if (listenArgs[0] === 0 && process.env.PORT === "") listenArgs[0] = DEFAULT_PORT;
      return listen(...listenArgs);
    }) as typeof server.listen;
    server.once("listening", () => {
      const address = server.address();
      if (address && typeof address === "object") logEvent("listening", { port: address.port });
    });
    return server;
  }) as typeof http.createServer;

  process.on("uncaughtException", (error) => logUnexpected("uncaught-exception", error));
  process.on("unhandledRejection", (reason) => logUnexpected("unhandled-rejection", reason));
}

function logUnexpected(kind: string, error: unknown): void {
  const { name, message, stack } =
    error instanceof Error ? error : { name: typeof error, message: String(error), stack: undefined };
  logEvent("unexpected-error", { kind, name, message, at: stack?.split("\n")[1]?.trim() });
}
