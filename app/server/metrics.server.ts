import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

type QueueWatch = { counts(): Promise<Record<string, number>>; oldestUndeliveredMs(): Promise<number> };
export type SiteverifyResult = "valid" | "invalid" | "error" | "timeout";

const WEBHOOK_RESULTS = ["2xx", "4xx", "429", "5xx", "timeout", "network"];
const SITEVERIFY_RESULTS: SiteverifyResult[] = ["valid", "invalid", "error", "timeout"];
const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx"];

/** The figures ops watch (docs/delivery.md, "Metrics"): counted always, shown only to a request bearing METRICS_TOKEN. */
export class Metrics {
  /** Where other concerns register their own figures (the campaign counts: app/insight/). */
  readonly registry = new Registry();
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
  private readonly siteverifyCalls = new Counter({
    name: "siteverify_calls_total",
    help: "hCaptcha siteverify calls by result (valid, invalid, error, timeout)",
    labelNames: ["result"],
    registers: [this.registry],
  });
  private readonly answers = new Counter({
    name: "http_responses_total",
    help: "Answers to visitors (not to probes or scrapes), by status class (2xx, 3xx, 4xx, 5xx)",
    labelNames: ["status_class"],
    registers: [this.registry],
  });
  private readonly deadLetters = new Counter({
    name: "signup_dead_letters_total",
    help: "Queued sign-ups that became dead letters (failed for good), re-queued ones that failed again included",
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
    // Shown at 0 from the start: Prometheus's increase() misses the first count of a series that appears later.
    for (const result of WEBHOOK_RESULTS) this.attempts.inc({ result }, 0);
    for (const result of SITEVERIFY_RESULTS) this.siteverifyCalls.inc({ result }, 0);
    for (const status_class of STATUS_CLASSES) this.answers.inc({ status_class }, 0);
    this.deadLetters.inc(0);
  }

  readonly signup = (outcome: string) => this.signups.inc({ outcome });
  readonly attempt = (result: string) => this.attempts.inc({ result });
  readonly delivered = (latencyMs: number) => this.latency.observe(latencyMs / 1000);
  readonly deadLettered = () => this.deadLetters.inc();
  readonly siteverify = (result: SiteverifyResult) => this.siteverifyCalls.inc({ result });
  readonly answered = (status: number) => this.answers.inc({ status_class: `${Math.floor(status / 100)}xx` });

  /** 1 while `unready` finds nothing wrong (what /readyz answers), read at each scrape. */
  watchReadiness(unready: () => Promise<string | null>): void {
    new Gauge({
      name: "instance_ready",
      help: "1 while /readyz answers ready, 0 while it answers 503",
      registers: [this.registry],
      async collect() {
        this.set((await unready().catch(() => "unknown")) === null ? 1 : 0);
      },
    });
  }

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
      if (!token || !bears(request.headers.authorization, token)) return false;
      this.registry
        .metrics()
        .then((text) => {
          response.writeHead(200, { "Content-Type": this.registry.contentType, "Cache-Control": "no-store" });
          response.end(text);
        })
        .catch(() => {
          response.writeHead(503, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
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
