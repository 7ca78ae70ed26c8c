import http from "node:http";
import type { Socket } from "node:net";
import { APP_ROOT } from "./app-files.server";
import { PEER_ADDRESS_HEADER } from "./client-address.server";
import { answerBeforeExit, drainOnStop } from "./graceful-stop.server";
import { logError, logEvent } from "./log.server";
import { percentDecoded } from "./percent-decoding.server";

/** True when it answered the request, false to hand it on to Remix. */
type EarlyAnswer = (request: http.IncomingMessage, response: http.ServerResponse) => boolean;
const earlyAnswers = new Map<string, EarlyAnswer>();

export function answerBeforeRemix(path: string, answer: EarlyAnswer): void {
  earlyAnswers.set(path, answer);
}

let publicOrigin: string | undefined;

/** The site's public address (PUBLIC_URL's origin): posts from it are the site's own whatever Host a proxy sends. */
export function acceptPostsFrom(origin: string | undefined): void {
  publicOrigin = origin;
}

let answered: (status: number, path: string) => void = () => {};

/** Told the status and path of every answer sent, the guards' own refusals included (for /metrics). */
export function onEachAnswer(listener: (status: number, path: string) => void): void {
  answered = listener;
}

/** On a request Remix's own script sent (`?_data=<route id>`): the route id. */
export const DATA_REQUEST_HEADER = "x-landing-data-request";
/** Remix cannot even build a Request for TRACE or TRACK. */
const ANSWERED_METHODS = new Set(["GET", "HEAD", "POST"]);
/** remix-serve's own default when PORT is unset. */
const DEFAULT_PORT = 3000;
const INSTALLED = Symbol.for("landing.serverPlumbing");
/** Node waits 5 minutes, long enough for stalled uploads to pile up: a form's whole arrival (docs/signup.md, "Limits"), 408 past it. */
const BODY_DEADLINE: http.ServerOptions = { requestTimeout: 15_000, connectionsCheckingInterval: 1_000 };
/**
 * Longer than any balancer keeps an idle connection to the apps (AWS ALB 60 s by default, Google's 600 s, fixed), so
 * the balancer always closes it first: Node's 5 s was shorter, and a request sent as the app closed the connection
 * was reset, which a balancer does not retry for a POST (a 502).
 */
const IDLE_CONNECTION_KEPT: http.ServerOptions = { keepAliveTimeout: 620_000 };
/** A Host header as a URL's authority: a name or an address, and a port. */
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
/** How long the rest of a refused upload is read after the answer, before the connection closes. */
const LINGER_MS = 2_000;
/** HOST's shape still lets through what Remix's `new URL()` throws on (`999.999.999.999`, a port past 65535). */
const isUrlHost = (host: string) => HOST.test(host) && URL.canParse(`http://${host}/`);
const LISTEN_ERRORS = new Map([
  ["EADDRINUSE", "it is already in use"],
  ["EACCES", "permission denied"],
]);

/** The data requests the page's own script makes (`?_data=<route id>`); Remix answers any other in English JSON. */
function isOwnDataRequest(method: string, path: string, routeId: string): boolean {
  if (method === "POST") return path === "/" && routeId === "routes/_index";
  return routeId === (path === "/" ? "routes/_index" : "routes/$");
}

/** The guards remix-serve lacks, installed as it imports the build; why each: docs/decisions/005-…. */
export function installServerPlumbing(): void {
  const registry = globalThis as typeof globalThis & { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return; // the dev server re-imports the build
  registry[INSTALLED] = true;

  process.chdir(APP_ROOT);

  const createServer = http.createServer;
  http.createServer = ((...args: Parameters<typeof http.createServer>) => {
    const listener = args.find((arg) => typeof arg === "function") as http.RequestListener | undefined;
    const options = args.find((arg) => typeof arg === "object") as http.ServerOptions | undefined;
    const server = createServer({ ...BODY_DEADLINE, ...IDLE_CONNECTION_KEPT, ...options }, (request, response) => {
      const path = (request.url ?? "").split("?", 1)[0]!;
      response.once("finish", () => answered(response.statusCode, path));
      noStoreUnlessSaid(response);
      lingerBeforeClosing(request);
      // Overwrites whatever a client sent under this name.
      request.headers[PEER_ADDRESS_HEADER] = request.socket.remoteAddress ?? "";
      if (!ANSWERED_METHODS.has(request.method ?? ""))
        return refuse(response, 405, "Método não permitido.", { Allow: [...ANSWERED_METHODS].join(", ") });
      // Remix builds the request's URL from Host and the target: one it cannot parse would be a
      // 500 and a stack per request; a Host holding a path or a target like `//` would be misread.
      const target = originForm(request.url ?? "/");
      const url = target !== undefined && isUrlHost(request.headers.host ?? "") ? parseTarget(target) : null;
      if (target === undefined || !url) return refuse(response, 400, "Requisição inválida.");
      // An early answer takes the methods it answers (the counts' beacon is a POST) and hands on the rest.
      if (earlyAnswers.get(url.pathname)?.(request, response)) return;
      if (request.method === "POST" && !(url.pathname === "/" && url.searchParams.has("index")))
        return refuse(response, 405, "Método não permitido.", { Allow: "GET, HEAD" });
      // A post from another site is refused here, in Portuguese. Remix's own check answers an empty 500 (a 5xx at
      // anyone's will) to any Origin but Host's, `null` and the public address behind a proxy that rewrites Host
      // included: once this one has passed, Remix is not asked.
      if (request.method === "POST") {
        if (!fromThisSite(request.headers.origin, request.headers.host)) {
          logEvent("origin-mismatch", { origin: request.headers.origin, host: request.headers.host });
          return refuse(
            response,
            403,
            "Envio recusado: o formulário veio de outro endereço. Abra a página e envie de novo.",
          );
        }
        delete request.headers.origin;
      }
      // One spelling per path: `//` rendered the page with its form posting to `//?index`.
      if (url.pathname.includes("//")) return redirect(response, url.pathname.replace(/\/{2,}/g, "/") + url.search);
      if (request.method === "POST") answerBeforeExit(request, response);
      const routeId = url.searchParams.get("_data");
      if (routeId !== null && !isOwnDataRequest(request.method!, url.pathname, routeId))
        return refuse(response, 400, "Requisição inválida.");
      // Remix takes `_data` out of the request a route's action reads: it is told here, whatever a client sent.
      if (routeId === null) delete request.headers[DATA_REQUEST_HEADER];
      else request.headers[DATA_REQUEST_HEADER] = routeId;
      request.url = withDecodablePath(target);
      // Remix's adapter takes the port from it, and anyone can send it (`evil:99999` was a 500 on every route).
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
      // remix-serve would exit 0, which Docker's restart policy and systemd take for a clean stop.
      const why = LISTEN_ERRORS.get(error.code ?? "") ?? error.message;
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

  // A log that can no longer be written (reader gone, disk full) must cost log lines, never the server:
  // unheard, each failed write is an uncaught error whose logging fails again.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  process.on("uncaughtException", (error) => logError("unexpected-error", error, { kind: "uncaught-exception" }));
  process.on("unhandledRejection", (reason) => logError("unexpected-error", reason, { kind: "unhandled-rejection" }));
  drainOnStop();
}

/** The path and query of an origin-form target; `//x` is a path here, never another host. */
const parseTarget = (target: string) => URL.parse(`http://site${target}`);

/** The request target as a path (`/a?b`; an absolute-form target cut to it), or undefined when it names none (`*`). */
function originForm(target: string): string | undefined {
  if (target.startsWith("/")) return target;
  const url = URL.parse(target);
  return url?.protocol === "http:" || url?.protocol === "https:" ? url.pathname + url.search : undefined;
}

/** express answers a path it cannot percent-decode (`/%`) with its English 400: escaped, it reaches our 404. */
function withDecodablePath(url: string): string {
  const path = url.split("?", 1)[0]!;
  return percentDecoded(path) === null ? path.replaceAll("%", "%25") + url.slice(path.length) : url;
}

/**
 * Whether a post's Origin is this site: the Host it reached, or the public address (PUBLIC_URL) behind a proxy that
 * rewrites Host. An absent or opaque (`null`: a sandboxed frame, a page whose referrer policy is no-referrer) Origin
 * names no other site; such a post still needs the page's signed fields and a captcha or an answer, which another
 * site cannot read from ours. Host is read as an address of the Origin's scheme, as a browser would write it: a proxy
 * may keep its capitals or name the default port (`prevly.com.br:443`).
 */
function fromThisSite(origin: string | undefined, host: string | undefined): boolean {
  if (!origin || origin === "null") return true;
  const from = URL.parse(origin);
  return origin === publicOrigin || (from !== null && from.host === URL.parse(`${from.protocol}//${host}`)?.host);
}

/**
 * Every answer that names no Cache-Control is `no-store`: the app marks the one answer a shared cache may keep (the
 * page), and a redirect of remix-serve's static files or an answer nobody thought about must not be kept by one.
 */
function noStoreUnlessSaid(response: http.ServerResponse): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => http.ServerResponse;
  response.writeHead = ((...args: unknown[]) => {
    const given = args.find((arg) => typeof arg === "object" && arg !== null) ?? {};
    // An object of headers, or a flat array of names and values.
    const names = Array.isArray(given) ? given.filter((_, index) => index % 2 === 0) : Object.keys(given);
    const said = names.some((name) => String(name).toLowerCase() === "cache-control");
    if (!said && !response.hasHeader("cache-control")) response.setHeader("Cache-Control", "no-store");
    return writeHead(...args);
  }) as typeof response.writeHead;
}

function redirect(response: http.ServerResponse, location: string) {
  response.writeHead(301, { Location: location, "Content-Length": 0 });
  response.end();
}

function refuse(response: http.ServerResponse, status: number, text: string, headers: http.OutgoingHttpHeaders = {}) {
  response.writeHead(status, {
    ...headers,
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
    Connection: "close",
  });
  response.end(text);
}

const requestOf = new WeakMap<Socket, http.IncomingMessage>();

/**
 * Closes a connection only once the request's body has arrived, or LINGER_MS after the answer, as nginx's lingering
 * close does: closed with bytes unread, the kernel answers them with a reset that can overtake the answer (a 413).
 * Call for each request before it is answered.
 */
function lingerBeforeClosing(request: http.IncomingMessage): void {
  const socket = request.socket as Socket & { destroySoon(): void };
  const known = requestOf.has(socket);
  requestOf.set(socket, request);
  if (known) return;
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    const current = requestOf.get(socket);
    if (!current || current.complete) return destroySoon();
    // The answer is out: what still arrives is read and dropped (a reader of the body would hold it back).
    const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    current.once("end", () => {
      clearTimeout(timer);
      destroySoon();
    });
    current.removeAllListeners("data");
    current.resume();
  };
}
