import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { answerBeforeExit } from "./graceful-stop.server";
import { decide, parserRefusal, type Decision, type EdgeSettings } from "./guards.server";
import { logError, logEvent } from "./log.server";

/** True when it answered the request, false to hand it on as the decision's `otherwise` says. */
export type EarlyAnswer = (request: http.IncomingMessage, response: http.ServerResponse) => boolean;
export type Edge = Omit<EdgeSettings, "earlyAnswers"> & {
  earlyAnswers: ReadonlyMap<string, { methods: readonly string[]; answer: EarlyAnswer }>;
  /** Told the status and path of every answer sent, the refusals included (for /metrics). */
  answered: (status: number, path: string) => void;
  /** Told the address the server listens on, once it does. */
  listening?: (address: AddressInfo) => void;
};

/** remix-serve's own default when PORT is unset. */
const DEFAULT_PORT = 3000;
const createServer = http.createServer;
/**
 * A request must arrive whole within a form's time (docs/signup.md, "Limits"), 408 past it: Node's 5 minutes let
 * stalled uploads pile up. An idle connection is kept longer than any balancer keeps its own (AWS ALB 60 s by default,
 * Google's 600 s, fixed), so the balancer closes it first: with Node's 5 s, a request sent as the app closed the
 * connection was reset, which a balancer does not retry for a POST (a 502).
 */
const SERVER_OPTIONS: http.ServerOptions = {
  requestTimeout: 15_000,
  connectionsCheckingInterval: 1_000,
  keepAliveTimeout: 620_000,
};
/** How long the rest of a refused upload is read after the answer, before the connection closes. */
const LINGER_MS = 2_000;

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
    const path = (request.url ?? "").split("?", 1)[0]!;
    response.once("finish", () => edge.answered(response.statusCode, path));
    noStoreUnlessSaid(response);
    lingerBeforeClosing(response);
    const { method = "", url = "", headers, socket } = request;
    const decision = decide({ method, target: url, headers, peerAddress: socket.remoteAddress ?? "" }, edge);
    carryOut(decision, request, response);
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
    const { status, text } = parserRefusal(error.code);
    const head = [
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
      "Content-Type: text/plain; charset=utf-8",
      `Content-Length: ${Buffer.byteLength(text)}`,
      "Cache-Control: no-store",
      "Connection: close",
    ];
    socket.end(`${head.join("\r\n")}\r\n\r\n${text}`, () => socket.destroy());
    edge.answered(status, "");
  });
  server.once("listening", () => {
    const address = server.address();
    if (!address || typeof address !== "object") return;
    logEvent("listening", { port: address.port });
    edge.listening?.(address);
  });
  return server;

  function carryOut(decision: Decision, request: http.IncomingMessage, response: http.ServerResponse): void {
    switch (decision.kind) {
      case "refuse": {
        const { origin, host } = request.headers;
        if (decision.originMismatch) logEvent("origin-mismatch", { origin, host });
        response.statusCode = decision.status;
        if (decision.allow) response.setHeader("Allow", decision.allow);
        response.setHeader("Content-Type", "text/plain; charset=utf-8").setHeader("Connection", "close");
        return void response.end(decision.text);
      }
      case "redirect":
        return void response.writeHead(301, { Location: decision.location, "Content-Length": 0 }).end();
      case "early":
        if (edge.earlyAnswers.get(decision.path)?.answer(request, response)) return;
        return carryOut(decision.otherwise(), request, response);
      case "remix":
        if (decision.signup) answerBeforeExit(request, response);
        request.url = decision.target;
        request.headers = decision.headers;
        return void listener(request, response);
    }
  }
}

/** An answer naming no Cache-Control is `no-store`: only the page is marked for a shared cache (a static file's
 * redirect, an answer nobody thought about, must not be kept by one). */
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

/** The latest answer on each connection. */
const responseOn = new WeakMap<Socket, http.ServerResponse>();

/** Closes a connection once the request's body has arrived, or LINGER_MS after the answer (nginx's lingering close):
 * closed with bytes unread, the kernel answers them with a reset that can overtake the answer (a 413). */
function lingerBeforeClosing(response: http.ServerResponse): void {
  const socket = response.req.socket as Socket & { destroySoon(): void };
  const known = responseOn.has(socket);
  responseOn.set(socket, response);
  if (known) return;
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
