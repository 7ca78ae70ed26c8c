import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

type QueueWatch = { counts(): Promise<Record<string, number>>; oldestUndeliveredMs(): Promise<number> };

/** The figures ops watch (docs/delivery.md, "Metrics"): counted always, shown only to a request bearing METRICS_TOKEN. */
export class Metrics {
  private readonly registry = new Registry();
  private readonly signups = new Counter({
    name: "signups_total",
    help: "Sign-up posts by outcome",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: "webhook_attempts_total",
    help: "POSTs to the automation's webhook by result (2xx, 4xx, 429, 5xx, timeout, network)",
    labelNames: ["result"],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "signup_delivery_seconds",
    help: "From a sign-up's acceptance to the webhook's 2xx",
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 6 * 3600, 24 * 3600, 72 * 3600],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  readonly signup = (outcome: string) => this.signups.inc({ outcome });
  readonly attempt = (result: string) => this.attempts.inc({ result });
  readonly delivered = (latencyMs: number) => this.latency.observe(latencyMs / 1000);

  /** The queue's figures, read at each scrape. */
  watch(queue: QueueWatch): void {
    const registers = [this.registry];
    new Gauge({
      name: "signup_queue_jobs",
      help: "Queued sign-ups by state (failed: the dead-letter list)",
      labelNames: ["state"],
      registers,
      async collect() {
        // While Redis is away the other figures are still worth reading: these are left out.
        this.reset();
        const counts = await queue.counts().catch(() => ({}));
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
      },
    });
    new Gauge({
      name: "signup_queue_oldest_undelivered_seconds",
      help: "Age of the oldest sign-up still to be delivered (0 when none)",
      registers,
      async collect() {
        this.reset();
        const ageMs = await queue.oldestUndeliveredMs().catch(() => null);
        if (ageMs !== null) this.set(ageMs / 1000);
      },
    });
  }

  /** False unless the request bears `Authorization: Bearer <token>`: it falls through to the site's 404 page. */
  handler(token: string | undefined) {
    return (request: IncomingMessage, response: ServerResponse): boolean => {
      if (!token || request.method !== "GET" || !bears(request.headers.authorization, token)) return false;
      this.registry
        .metrics()
        .then((text) => {
          response.writeHead(200, { "Content-Type": this.registry.contentType, "Cache-Control": "no-store" });
          response.end(text);
        })
        .catch(() => {
          response.writeHead(503, { "Content-Type": "text/plain; charset=utf-8" });
          response.end("Métricas indisponíveis.");
        });
      return true;
    };
  }
}

function bears(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? "");
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
