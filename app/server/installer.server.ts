import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { answerBeforeExit } from "./graceful-stop.server";
import { content } from "~/content";
import { decide, type EdgeSettings } from "./guards.server";
import { logError, logEvent } from "./log.server";

/** True when it answered the request, false to hand it to Remix. */
type EarlyAnswer = (request: http.IncomingMessage, response: http.ServerResponse) => boolean;
export type Edge = Omit<EdgeSettings, "earlyAnswers"> & {
  earlyAnswers: ReadonlyMap<string, { methods: readonly string[]; answer: EarlyAnswer }>;
  /** Told the status and path of every answer sent, the refusals included (for /metrics). */
  answered: (status: number, path: string) => void;
};

/** remix-serve's own default when PORT is unset. */
const DEFAULT_PORT = 3000;
const createServer = http.createServer;
/**
 * A request must arrive whole within a form's time, 408 past it (Node's 5 minutes let stalled uploads pile up). An idle
 * connection outlives any balancer's own (AWS ALB 60 s by default, Google's 600 s), so the balancer closes it first:
 * with Node's 5 s, a post sent as the app closed it was reset, a 502 (docs/signup.md, "Limits").
 */
const SERVER_OPTIONS: http.ServerOptions = {
  requestTimeout: 15_000,
  connectionsCheckingInterval: 1_000,
  keepAliveTimeout: 620_000,
};
/** How long the rest of a refused upload is read after the answer, before the connection closes. */
const LINGER_MS = 2_000;
/** What Node's parser refuses before a request exists, by its error code, with the status Node itself would send. */
const PARSER_REFUSALS: Record<string, [status: number, text: string]> = {
  HPE_HEADER_OVERFLOW: [431, content.refusals.tooLong],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, content.refusals.tooLarge],
  ERR_HTTP_REQUEST_TIMEOUT: [408, content.refusals.tooSlow],
};
const NO_STORE = { "Cache-Control": "no-store" };
/** A refusal's headers: plain text, kept by no cache, on a connection closed after it. */
const REFUSAL_HEADERS = { "Content-Type": "text/plain; charset=utf-8", ...NO_STORE, Connection: "close" };

/** What remix-serve lacks, installed as it imports the build: each patch of Node and why, docs/decisions/005-…. */
export function installServerPlumbing(edge: Edge): void {
  http.createServer = ((...args: Parameters<typeof http.createServer>) => {
    const listener = args.find((arg) => typeof arg === "function") as http.RequestListener;
    return guardedServer(edge, listener, args.find((arg) => typeof arg === "object") as http.ServerOptions);
  }) as typeof http.createServer;
}

/** A server as `createServer` makes it, with the edge's deadlines, decision, and exit on a port it cannot listen on. */
export function guardedServer(edge: Edge, listener: http.RequestListener, options?: http.ServerOptions): http.Server {
  const server = createServer({ ...SERVER_OPTIONS, ...options }, (request, response) => {
    const decision = decide(request, edge);
    response.once("finish", () => edge.answered(response.statusCode, decision.path));
    responseOn.set(request.socket, response);
    if (decision.kind === "refuse") {
      const { origin, host } = request.headers;
      if (decision.status === 403) logEvent("origin-mismatch", { origin, host });
      const headers = { ...REFUSAL_HEADERS, "Content-Length": Buffer.byteLength(decision.text) };
      if (decision.allow) Object.assign(headers, { Allow: decision.allow });
      return void response.writeHead(decision.status, headers).end(decision.text);
    }
    if (decision.kind === "redirect")
      return void response.writeHead(301, { Location: decision.location, "Content-Length": 0, ...NO_STORE }).end();
    if (decision.early && edge.earlyAnswers.get(decision.path)?.answer(request, response)) return;
    if (decision.signup) answerBeforeExit(request, response);
    noStoreUnlessSaid(response);
    request.url = decision.target;
    request.headers = decision.headers;
    listener(request, response);
  });
  server.on("connection", lingerBeforeClosing);
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
    const why = error.code === "EADDRINUSE" ? "it is already in use" : error.message;
    console.error(`Cannot listen on port ${String(port)}: ${why}. Stop what listens there or set PORT to a free port.`);
    process.exit(1);
  });
  // Node would answer these bare; there is no request or response yet, only the socket. An answer already begun on
  // it (a request timed out while its answer was being sent) is cut rather than corrupted.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const begun = responseOn.get(socket);
    if (error.code === "ECONNRESET" || !socket.writable || (begun?.headersSent && !begun.writableFinished))
      return void socket.destroy();
    const [status, text] = PARSER_REFUSALS[error.code ?? ""] ?? [400, content.refusals.invalid];
    const headers = Object.entries({ ...REFUSAL_HEADERS, "Content-Length": Buffer.byteLength(text) });
    const head = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`, ...headers.map((header) => header.join(": "))];
    socket.end(`${head.join("\r\n")}\r\n\r\n${text}`, () => socket.destroy());
    edge.answered(status, "");
  });
  server.once("listening", () => {
    const address = server.address() as AddressInfo;
    logEvent("listening", { port: address.port });
  });
  return server;
}

/** Remix's answer naming no Cache-Control is `no-store`: only the page is marked for a shared cache (a static file's
 * redirect, an answer nobody thought about, must not be kept by one). What `writeHead` is given overrides it. */
function noStoreUnlessSaid(response: http.ServerResponse): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => http.ServerResponse;
  response.writeHead = ((...args: unknown[]) => {
    if (!response.hasHeader("cache-control")) response.setHeader("Cache-Control", "no-store");
    return writeHead(...args);
  }) as typeof response.writeHead;
}

/** The latest answer on each connection. */
const responseOn = new WeakMap<Socket, http.ServerResponse>();

/** Closes a connection once its latest request's body has arrived, or LINGER_MS after the answer (nginx's lingering
 * close): closed with bytes unread, the kernel answers them with a reset that can overtake the answer (a 413). */
function lingerBeforeClosing(socket: Socket & { destroySoon(): void }): void {
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    const current = responseOn.get(socket)?.req;
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
