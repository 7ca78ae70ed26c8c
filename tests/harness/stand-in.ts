import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";

/** How the stand-in webhook answers the next requests. */
export type WebhookBehaviour = {
  status: number;
  text?: string;
  /** Wait this long before answering (longer than the app's timeout = a stall). */
  delayMs?: number;
  /** Drop the connection without answering (connection reset). */
  reset?: boolean;
  /** Answer with this many bytes of body. */
  bodyBytes?: number;
  /** Extra answer headers (Retry-After). */
  headers?: Record<string, string>;
  /** Keep each answer until `releaseWebhook` lets it go: a slow automation that answers when the test says. */
  hold?: boolean;
  /** What is wrong with the answer's body once its status line is sent: a byte every 100 ms for `trickleMs`, less
   * than its Content-Length before the connection drops, or labelled gzip without being gzip. */
  bodyFault?: { trickleMs: number } | "cut-short" | "false-gzip";
};

/** How the stand-in siteverify answers. */
export type SiteverifyBehaviour = {
  success: boolean;
  status?: number;
  delayMs?: number;
  /** With `success`, only tokens starting with this are genuine (a real visitor among forgeries). */
  genuinePrefix?: string;
  /** Keep each answer until `releaseSiteverify` lets it go: calls in flight then change only when the test says. */
  hold?: boolean;
};

export type ReceivedWebhook = {
  headers: IncomingMessage["headers"];
  raw: string;
  body: unknown;
  /** When it arrived (Date.now()), and the status it was answered with (0: no answer). */
  at: number;
  status: number;
};
export type ReceivedSiteverify = { form: Record<string, string> };

export const WEBHOOK_PATH = "/hooks/c0ffee-secret-path";
export const SITEVERIFY_PATH = "/siteverify";

const DEFAULT_WEBHOOK: WebhookBehaviour = { status: 200, text: "ok" };
const DEFAULT_SITEVERIFY: SiteverifyBehaviour = { success: true };

/**
 * A real HTTP server on 127.0.0.1 standing in for the automation webhook and
 * hCaptcha's siteverify. Tests steer it in-process, or over its /control API
 * when they run in another process (Playwright workers).
 */
export class StandIn {
  webhook: WebhookBehaviour = { ...DEFAULT_WEBHOOK };
  siteverify: SiteverifyBehaviour = { ...DEFAULT_SITEVERIFY };
  readonly received: { webhook: ReceivedWebhook[]; siteverify: ReceivedSiteverify[] } = { webhook: [], siteverify: [] };
  /** Body bytes the webhook managed to write before the client hung up (with `bodyBytes`). */
  bodyBytesSent = 0;
  /** The most siteverify requests that were waiting for their answer at once. */
  siteverifyPeak = 0;
  private siteverifyOpen = 0;
  /** Answers kept by `hold`, oldest first: what lets each go, and the captcha token (the e-mail) it answers. */
  private readonly heldSiteverify = new Map<() => void, string>();
  private readonly heldWebhook = new Map<() => void, string>();
  private server: Server | null = null;
  /** Emits "webhook" and "siteverify" as each request arrives, and "webhook-done" once the webhook's answer ends. */
  private readonly arrivals = new EventEmitter();
  private webhookAnswersDone = 0;

  /** The e-mail of every body the webhook received, in order. */
  relayedEmails(): string[] {
    return this.received.webhook.map((hit) => (hit.body as { email: string }).email);
  }

  /** The e-mail of every body the webhook accepted (2xx), once per Idempotency-Key: what an automation keeps. */
  deliveredEmails(): string[] {
    return deliveredOf(this.received);
  }

  /** Resolves once `kind` has received `count` requests in all (they may still be waiting for their answer). */
  async arrived(kind: "webhook" | "siteverify", count = 1): Promise<void> {
    while (this.received[kind].length < count) await once(this.arrivals, kind);
  }

  /** Lets held siteverify answers go: the oldest `which` of them, or the one answering token `which`. */
  releaseSiteverify(which: number | string = Infinity): string[] {
    return release(this.heldSiteverify, which);
  }

  /** Lets held webhook answers go: the oldest `which` of them, or the one for e-mail `which`. */
  releaseWebhook(which: number | string = Infinity): string[] {
    return release(this.heldWebhook, which);
  }

  /** Resolves once the webhook has finished (or given up) answering `count` requests in all. */
  async webhookDone(count = 1): Promise<void> {
    while (this.webhookAnswersDone < count) await once(this.arrivals, "webhook-done");
  }

  /** Listens on loopback unless told otherwise (a container publishes it from all its interfaces). */
  async start(port = 0, host = "127.0.0.1"): Promise<string> {
    this.server = createServer((request, response) => {
      void this.route(request, response);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    return this.origin;
  }

  get origin(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  get webhookUrl(): string {
    return this.origin + WEBHOOK_PATH;
  }

  get siteverifyUrl(): string {
    return this.origin + SITEVERIFY_PATH;
  }

  /** The settings of a server that relays to this webhook and verifies captcha tokens with this siteverify. */
  get captchaSettings(): Record<string, string> {
    return { WEBHOOK_URL: this.webhookUrl, HCAPTCHA_SECRET: "0xsecret", HCAPTCHA_VERIFY_URL: this.siteverifyUrl };
  }

  reset(): void {
    this.webhook = { ...DEFAULT_WEBHOOK };
    this.siteverify = { ...DEFAULT_SITEVERIFY };
    this.received.webhook.length = 0;
    this.received.siteverify.length = 0;
    this.bodyBytesSent = 0;
    this.webhookAnswersDone = 0;
    this.siteverifyPeak = 0;
    this.releaseSiteverify();
    this.releaseWebhook();
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = null;
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await text(request);
    const path = (request.url ?? "").split("?")[0];
    if (request.method === "POST" && path === WEBHOOK_PATH) {
      await this.answerWebhook(request, raw, response).finally(() => {
        this.webhookAnswersDone += 1;
        this.arrivals.emit("webhook-done");
      });
      return;
    }
    if (request.method === "POST" && path === SITEVERIFY_PATH) return this.answerSiteverify(raw, response);
    /** Steering over HTTP, for tests in another process: the new behaviour in, or what was received out. */
    const control: Record<string, () => string | void> = {
      "PUT /control/webhook": () => void (this.webhook = JSON.parse(raw) as WebhookBehaviour),
      "PUT /control/siteverify": () => void (this.siteverify = JSON.parse(raw) as SiteverifyBehaviour),
      "POST /control/reset": () => this.reset(),
      "GET /control/received": () => JSON.stringify(this.received),
    };
    const steer = control[`${request.method} ${path}`];
    if (!steer) return void response.writeHead(404).end();
    const json = steer();
    response.writeHead(json ? 200 : 204, json ? { "content-type": "application/json" } : {}).end(json);
  }

  private async answerWebhook(request: IncomingMessage, raw: string, response: ServerResponse): Promise<void> {
    const behaviour = this.webhook;
    const hit: ReceivedWebhook = { headers: request.headers, raw, body: parsedOrNull(raw), at: Date.now(), status: 0 };
    this.received.webhook.push(hit);
    this.arrivals.emit("webhook");
    if (behaviour.delayMs) await sleep(behaviour.delayMs, response);
    if (behaviour.hold)
      await heldUntilReleased(this.heldWebhook, (hit.body as { email?: string })?.email ?? "", response);
    if (response.destroyed) return;
    if (behaviour.reset) {
      request.socket.destroy();
      return;
    }
    hit.status = behaviour.status;
    if (behaviour.bodyBytes) {
      response.writeHead(behaviour.status, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, "x");
      let left = behaviour.bodyBytes;
      while (left > 0 && !response.destroyed) {
        const piece = chunk.subarray(0, Math.min(left, chunk.length));
        left -= piece.length;
        this.bodyBytesSent += piece.length;
        if (!response.write(piece)) await drainedOrClosed(response);
      }
      response.end();
      return;
    }
    if (behaviour.bodyFault) return writeFaultyBody(response, behaviour.status, behaviour.bodyFault);
    response.writeHead(behaviour.status, { "content-type": "text/plain; charset=utf-8", ...behaviour.headers });
    response.end(behaviour.text ?? "");
  }

  private async answerSiteverify(raw: string, response: ServerResponse): Promise<void> {
    const behaviour = this.siteverify;
    const form = Object.fromEntries(new URLSearchParams(raw));
    this.received.siteverify.push({ form });
    this.arrivals.emit("siteverify");
    this.siteverifyPeak = Math.max(this.siteverifyPeak, ++this.siteverifyOpen);
    try {
      if (behaviour.delayMs) await sleep(behaviour.delayMs, response);
      if (behaviour.hold) await heldUntilReleased(this.heldSiteverify, form.response ?? "", response);
    } finally {
      this.siteverifyOpen -= 1;
    }
    if (response.destroyed) return;
    const success = behaviour.success && (form.response ?? "").startsWith(behaviour.genuinePrefix ?? "");
    response.writeHead(behaviour.status ?? 200, { "content-type": "application/json" });
    response.end(JSON.stringify({ success, ...(success ? {} : { "error-codes": ["invalid-input-response"] }) }));
  }
}

/** Resolves once `release`d from `held` (under `label`), or when the client hangs up. */
function heldUntilReleased(held: Map<() => void, string>, label: string, response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const release = () => {
      held.delete(release);
      resolve();
    };
    held.set(release, label);
    response.once("close", release);
  });
}

/** Lets go the oldest `which` answers of `held`, or those under label `which`; their labels. */
function release(held: Map<() => void, string>, which: number | string): string[] {
  const entries = [...held];
  const chosen = typeof which === "number" ? entries.slice(0, which) : entries.filter(([, label]) => label === which);
  return chosen.map(([letGo, label]) => (letGo(), label));
}

export function deliveredOf(received: StandIn["received"]): string[] {
  const delivered = new Map<string, string>();
  for (const hit of received.webhook) {
    const key = String(hit.headers["idempotency-key"] ?? hit.raw);
    if (hit.status >= 200 && hit.status < 300 && !delivered.has(key))
      delivered.set(key, (hit.body as { email: string }).email);
  }
  return [...delivered.values()];
}

function parsedOrNull(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/** Resolves on the first of "drain" and "close", leaving no listener behind. */
function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done).off("close", done);
      resolve();
    };
    response.once("drain", done).once("close", done);
  });
}

async function writeFaultyBody(
  response: ServerResponse,
  status: number,
  fault: NonNullable<WebhookBehaviour["bodyFault"]>,
): Promise<void> {
  if (fault === "false-gzip") {
    response.writeHead(status, { "content-type": "application/json", "content-encoding": "gzip" });
    response.end('{"ok":true}');
  } else if (fault === "cut-short") {
    response.writeHead(status, { "content-type": "application/json", "content-length": "1000" });
    response.write('{"ok":');
    await sleep(100, response);
    response.destroy();
  } else {
    response.writeHead(status, { "content-type": "text/plain" });
    const until = Date.now() + fault.trickleMs;
    while (Date.now() < until && !response.destroyed) {
      response.write(".");
      await sleep(100, response);
    }
    response.end();
  }
}

/** Waits, but gives up early if the client hangs up (a timed-out app). */
function sleep(ms: number, response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    response.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Steers a StandIn running in another process through its /control API. */
export class StandInClient {
  constructor(private readonly origin: string) {}

  async reset(): Promise<void> {
    await this.send("POST", "/control/reset");
  }

  async setWebhook(behaviour: WebhookBehaviour): Promise<void> {
    await this.send("PUT", "/control/webhook", behaviour);
  }

  async setSiteverify(behaviour: SiteverifyBehaviour): Promise<void> {
    await this.send("PUT", "/control/siteverify", behaviour);
  }

  async received(): Promise<StandIn["received"]> {
    const response = await fetch(this.origin + "/control/received");
    return (await response.json()) as StandIn["received"];
  }

  private async send(method: string, path: string, body?: unknown): Promise<void> {
    const response = await fetch(this.origin + path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`stand-in control ${path}: ${response.status}`);
  }
}
