import http from "node:http";
import { APP_ROOT } from "./app-files.server";
import { PEER_ADDRESS_HEADER } from "./client-address.server";
import { drainOnStop } from "./graceful-stop.server";
import { lingerBeforeClosing } from "./lingering-close.server";
import { logError, logEvent } from "./log.server";

/** A path answered before Remix: true when it answered, false to hand the request on. */
export type EarlyAnswer = (request: http.IncomingMessage, response: http.ServerResponse) => boolean;
const earlyAnswers = new Map<string, EarlyAnswer>();

/** Answers `path` before Remix when `answer` says so (what is not a page: /metrics). */
export function answerBeforeRemix(path: string, answer: EarlyAnswer): void {
  earlyAnswers.set(path, answer);
}

/** The methods the site answers; Remix cannot even build a Request for TRACE or TRACK. */
const ANSWERED_METHODS = new Set(["GET", "HEAD", "POST"]);
/**
 * The data requests the page's own script makes (`?_data=<route id>`): the
 * root and page loaders, the 404's loader off `/`, and the sign-up action on
 * `/?index`. Remix answers any other in English JSON (403, 405).
 */
function isOwnDataRequest(method: string, path: string, routeId: string): boolean {
  if (method === "POST") return path === "/" && routeId === "routes/_index";
  return routeId === "root" || routeId === (path === "/" ? "routes/_index" : "routes/$");
}
/** remix-serve's own default when PORT is unset. */
const DEFAULT_PORT = 3000;
const INSTALLED = Symbol.for("landing.serverPlumbing");
/**
 * A whole request (a 16 KB form at most) must arrive within 15 s, checked every
 * second: Node's own limit is 5 minutes, long enough for stalled uploads to pile up.
 */
const BODY_DEADLINE: http.ServerOptions = { requestTimeout: 15_000, connectionsCheckingInterval: 1_000 };

/**
 * remix-serve cannot be customised (no middleware, no error handler), so the
 * guards it lacks are installed when it imports the build, before it listens:
 * - it finds `public/` and `build/` from the working directory: we move there;
 * - it turns `PORT=` into port 0 (a random port): empty means unset, so 3000;
 * - it waits 5 minutes for a request's body: 15 s here (408 past it);
 * - it hands Remix no socket address: the peer's is passed on in a header of
 *   ours, so clients can be limited without a proxy in front;
 * - an odd method (TRACE) throws inside Remix and express prints a stack per
 *   request: anything but GET, HEAD and POST is answered 405 before Remix, and
 *   a Host header no URL can be built from (Remix's would throw) 400;
 * - Remix answers a POST that no action takes, and a data request for a route
 *   that is not there (`?_data=routes/nope`), in English JSON: only the form's
 *   own POST and the page's own data requests reach it (405 and 400 otherwise);
 * - a path that cannot be percent-decoded (`/%`) gets express's English 400
 *   page: its percent signs are escaped, so it reaches our 404 page instead;
 * - Remix's adapter glues the request target onto the host, so an absolute-form
 *   target (`GET http://host/path`, which HTTP/1.1 allows) is cut to its path
 *   and `*` is refused 400; it also takes the port from X-Forwarded-Host, which
 *   anyone can send (`evil:99999` was a 500 on every route) and nothing here
 *   reads, so that header is dropped;
 * - an error nobody caught is logged as one JSON line instead of ending the
 *   process and every sign-up in flight with it, and a log that cannot be
 *   written any more (EPIPE, a full disk) only loses lines;
 * - it never exits on SIGTERM while keep-alive sockets linger: sign-ups in
 *   flight are drained, then the process exits 0 (graceful-stop.server.ts);
 * - a port it cannot listen on (taken, privileged) is logged and the process
 *   exits 0, which Docker's restart policy and systemd take for a clean stop:
 *   it exits 1 with one line naming the port.
 */
export function installServerPlumbing(): void {
  const registry = globalThis as typeof globalThis & { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return; // the dev server re-imports the build
  registry[INSTALLED] = true;

  process.chdir(APP_ROOT);

  const createServer = http.createServer;
  http.createServer = ((...args: Parameters<typeof http.createServer>) => {
    const listener = args.find((arg) => typeof arg === "function") as http.RequestListener | undefined;
    const options = args.find((arg) => typeof arg === "object") as http.ServerOptions | undefined;
    const server = createServer({ ...BODY_DEADLINE, ...options }, (request, response) => {
      lingerBeforeClosing(request);
      // Overwrites whatever a client sent under this name.
      request.headers[PEER_ADDRESS_HEADER] = request.socket.remoteAddress ?? "";
      if (!ANSWERED_METHODS.has(request.method ?? "")) {
        return refuse(response, 405, "Método não permitido.", { Allow: [...ANSWERED_METHODS].join(", ") });
      }
      // Remix builds the request's URL from Host and the target: one it cannot parse would be a
      // 500 and a stack per request; a Host holding a path or a target like `//` would be misread.
      const target = originForm(request.url ?? "/");
      const url = target !== undefined && HOST.test(request.headers.host ?? "") ? parseTarget(target) : null;
      if (target === undefined || !url) return refuse(response, 400, "Requisição inválida.");
      if (request.method === "POST" && !(url.pathname === "/" && url.searchParams.has("index"))) {
        return refuse(response, 405, "Método não permitido.", { Allow: "GET, HEAD" });
      }
      if (earlyAnswers.get(url.pathname)?.(request, response)) return;
      const routeId = url.searchParams.get("_data");
      if (routeId !== null && !isOwnDataRequest(request.method!, url.pathname, routeId)) {
        return refuse(response, 400, "Requisição inválida.");
      }
      request.url = withDecodablePath(target);
      delete request.headers["x-forwarded-host"];
      return listener?.(request, response);
    });
    let port: unknown;
    const listen = server.listen.bind(server) as (...listenArgs: unknown[]) => http.Server;
    server.listen = ((...listenArgs: unknown[]) => {
      if (listenArgs[0] === 0 && process.env.PORT === "") listenArgs[0] = DEFAULT_PORT;
      port = listenArgs[0];
      return listen(...listenArgs);
    }) as typeof server.listen;
    server.on("error", (error: NodeJS.ErrnoException) => {
      if (server.listening) return logError("server-error", error);
      const why =
        error.code === "EADDRINUSE"
          ? "it is already in use"
          : error.code === "EACCES"
            ? "permission denied"
            : error.message;
      console.error(
        `Cannot listen on port ${String(port)}: ${why}. Stop what listens there or set PORT to a free port.`,
      );
      process.exit(1);
    });
    server.once("listening", () => {
      const address = server.address();
      if (address && typeof address === "object") logEvent("listening", { port: address.port });
    });
    return server;
  }) as typeof http.createServer;

  // A log that can no longer be written (its reader gone, its disk full) must cost log lines,
  // never the server: unheard, each failed write is an uncaught error whose logging fails again.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  process.on("uncaughtException", (error) => logError("unexpected-error", error, { kind: "uncaught-exception" }));
  process.on("unhandledRejection", (reason) => logError("unexpected-error", reason, { kind: "unhandled-rejection" }));
  drainOnStop();
}

/** A Host header as a URL's authority: a name or an address, and a port. */
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The path and query of an origin-form target; `//x` is a path here, never another host. */
function parseTarget(target: string): URL | null {
  try {
    return new URL(`http://site${target}`);
  } catch {
    return null;
  }
}

/** The request target as a path (`/a?b`), or undefined when it names none (`*`, `evil`). */
function originForm(target: string): string | undefined {
  if (target.startsWith("/")) return target;
  if (!URL.canParse(target)) return undefined;
  const { protocol, pathname, search } = new URL(target);
  return protocol === "http:" || protocol === "https:" ? pathname + search : undefined;
}

/** `url` unchanged when its path decodes; otherwise with every `%` of the path escaped, so it names a page that does not exist. */
function withDecodablePath(url: string): string {
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  try {
    decodeURIComponent(path);
    return url;
  } catch {
    return path.replaceAll("%", "%25") + url.slice(path.length);
  }
}

/** A short plain-text refusal that never reaches Remix. */
function refuse(
  response: http.ServerResponse,
  status: number,
  text: string,
  headers: http.OutgoingHttpHeaders = {},
): void {
  response.writeHead(status, {
    ...headers,
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
    Connection: "close",
  });
  response.end(text);
}
