import type { IncomingMessage, ServerResponse } from "node:http";
import { Counter, type Registry } from "prom-client";
import type { RequestFields } from "~/server/client-address.server";
import { DATA_REQUEST_HEADER } from "~/server/guards.server";
import { campaignOf, campaignQueryOfPost, refererHost, referringSite, type CampaignLabels } from "./attribution.server";
import { BoundedLabels, type Bounds } from "./bounded-labels.server";
import { CAMPAIGN_PARAMS, campaignQuery, REFERRER_FIELD } from "./paths";
import type { LoggedView } from "./view-log.server";

/**
 * Set by the shipped nginx on every request it proxies: it logs each page view it answers to the apps, from its cache
 * or not (view-log.server.ts), so the app does not count the page it renders for it again.
 */
const VIEW_COUNTED_HEADER = "x-view-counted";

/**
 * Sized for a launch's few dozen campaigns and referring sites (docs/insight.md, "Bounded"). A campaign's values are
 * labels only once a sign-up carried them: anything else anyone types, a person's data among it, is (other).
 */
export const BOUNDS: Bounds = { valuesPerLabel: 50, seriesPerMetric: 200, provenOnly: CAMPAIGN_PARAMS };

/** A beacon carries three short parameters and a host name. */
const BEACON_MAX_BYTES = 1024;
/** A new sign-up reached the webhook or the queue: `replay` and `known-email` were counted when first accepted. */
const ACCEPTED = new Set(["relayed", "queued"]);
const JAVASCRIPT = ["on", "off"] as const;
const PAGE_LABELS = [...CAMPAIGN_PARAMS, "referrer"] as const;
/** Alike views not counted yet: the first one's address and headers, and how many. */
type PendingView = {
  query: URLSearchParams;
  referer: string | null | undefined;
  host: string | null | undefined;
  views: number;
};

/**
 * The campaign counts (docs/insight.md): page views, visitors who reached the form, sign-up posts and sign-ups
 * accepted, by campaign and referring site. Counters only: no cookie, no identifier, no address or user agent kept.
 */
export class Insight {
  private readonly counters = new Map<string, Counter>();
  private readonly bounded = new BoundedLabels(BOUNDS, (metric, labels) => this.counters.get(metric)?.remove(labels));
  private readonly pendingViews = new Map<string, PendingView>();
  private readonly views;
  private readonly reached;
  private readonly posts;
  private readonly accepted;
  private readonly pressed;

  constructor(private readonly registry: Registry) {
    this.views = this.counter(
      "page_views_total",
      "Views of the page (GET /) wherever answered, by campaign (utm_*) and referring site",
      PAGE_LABELS,
    );
    this.reached = this.counter(
      "form_reached_total",
      "Visitors whose page booted as they neared the form (JavaScript on), by campaign and referring site",
      PAGE_LABELS,
    );
    this.posts = this.counter(
      "signup_posts_total",
      "Sign-up posts, by the campaign of the page posted from and whether JavaScript was on",
      CAMPAIGN_PARAMS,
      ["javascript"],
    );
    this.accepted = this.counter(
      "signups_accepted_total",
      "New sign-ups relayed or queued, by the campaign of the page posted from and whether JavaScript was on",
      CAMPAIGN_PARAMS,
      ["javascript"],
    );
    this.pressed = new Counter({
      name: "form_pressed_total",
      help: "Presses of the form's 'Cadastrar', at most one per sender's network (IPv4 address, IPv6 /48) an hour",
      registers: [registry],
    });
  }

  /** The page the app answered itself (entry.server.tsx, and the early answer in services.server.ts): a view, unless the shipped nginx counted it. */
  pageAnswered(request: RequestFields): void {
    if (request.method !== "GET" || request.headers.has(VIEW_COUNTED_HEADER)) return;
    this.viewed(new URL(request.url).searchParams, request.headers.get("referer"), request.headers.get("host"));
  }

  /** A view the shipped nginx answered and logged (view-log.server.ts), from its cache or not. */
  readonly viewLogged = ({ query, referer, host }: LoggedView): void => {
    this.viewed(new URLSearchParams(query), referer || null, host);
  };

  /** The boot's beacon (components/deferred-boot.tsx): the page's utm_* and the referring site's host, urlencoded. */
  readonly formReachedAnswer = (request: IncomingMessage, response: ServerResponse): boolean => {
    void readSmall(request, BEACON_MAX_BYTES).then((body) => {
      if (body === null) return answer(response, 413);
      const fields = new URLSearchParams(body);
      const campaign = campaignOf(fields);
      const referrer = referringSite(fields.get(REFERRER_FIELD), request.headers.host);
      if (this.reached({ ...campaign, referrer }, {})) this.prepare(campaign);
      answer(response, 204);
    });
    return true;
  };

  /**
   * A post the sign-up pipeline answered with `outcome`, counted for the campaign of the page it came from (and, when
   * `pressed`, as a visitor's press, for PrevlyFormBroken); that campaign, as a query for the form to carry into its
   * next post.
   */
  signupPosted(request: Request, outcome: string, pressed: boolean): string {
    if (pressed) this.pressed.inc();
    const query = campaignQueryOfPost(request.url, request.headers.get("referer"));
    const campaign = campaignOf(query);
    // Remix's script posts as a data request; a plain form post is the page without JavaScript.
    const javascript = request.headers.has(DATA_REQUEST_HEADER) ? "on" : "off";
    const accepted = ACCEPTED.has(outcome);
    // Before it is counted: a campaign that converts is never counted as (other) for want of a place.
    if (accepted) this.bounded.prove(campaign);
    // A post the bot trap caught is a script's: counted, it would inflate its campaign and pass for visitors who could
    // not sign up (PrevlyFormBroken).
    if (outcome !== "bot" && this.posts(campaign, { javascript })) this.prepare(campaign);
    if (accepted) this.accepted(campaign, { javascript });
    return campaignQuery(query);
  }

  /** A view, counted with the alike views that arrive in the same turn of the event loop (a flood's are alike). */
  private viewed(query: URLSearchParams, referer: string | null | undefined, host: string | null | undefined): void {
    const key = JSON.stringify([CAMPAIGN_PARAMS.map((name) => query.get(name)), referer, host]);
    const pending = this.pendingViews.get(key);
    if (pending) return void pending.views++;
    if (this.pendingViews.size === 0) setImmediate(this.countPendingViews);
    this.pendingViews.set(key, { query, referer, host, views: 1 });
  }

  /** Also run as /metrics is read, so that a scrape shows every view answered before it. */
  private readonly countPendingViews = () => {
    for (const { query, referer, host, views } of this.pendingViews.values()) {
      const campaign = campaignOf(query);
      const labels = { ...campaign, referrer: referringSite(refererHost(referer), host) };
      if (!this.views(labels, {}, views)) continue;
      this.reached(labels, {}, 0);
      this.prepare(campaign);
    }
    this.pendingViews.clear();
  };

  /**
   * A campaign's sign-up series (and a view's form-reached one) shown at 0 once it first appears: Prometheus's
   * increase() misses the first count of a series that appears later, and a campaign's first sign-ups are the ones a
   * launch watches.
   */
  private prepare(campaign: CampaignLabels): void {
    for (const javascript of JAVASCRIPT) {
      this.posts(campaign, { javascript }, 0);
      this.accepted(campaign, { javascript }, 0);
    }
  }

  /**
   * A counter whose `bounded` labels pass the bounds, beside `fixed` ones whose few values the code chooses; counting
   * tells whether the series is new.
   */
  private counter<B extends string, F extends string = never>(
    name: string,
    help: string,
    bounded: readonly B[],
    fixed: readonly F[] = [],
  ) {
    const counter = new Counter({
      name,
      help,
      labelNames: [...bounded, ...fixed],
      registers: [this.registry],
      collect: this.countPendingViews,
    });
    this.counters.set(name, counter);
    return (labels: Record<B, string>, fixedLabels: Record<F, string>, by = 1): boolean => {
      const bounded = this.bounded.labels(name, labels, fixedLabels);
      counter.inc(bounded.labels, by);
      return bounded.first;
    };
  }
}

function answer(response: ServerResponse, status: 204 | 413): void {
  response.writeHead(status, { "Cache-Control": "no-store", "Content-Length": 0 });
  response.end();
}

/** The body as text, or null past `limit` bytes (the guards read and drop the rest). */
function readSmall(request: IncomingMessage, limit: number): Promise<string | null> {
  if (Number(request.headers["content-length"] ?? 0) > limit) return Promise.resolve(null);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= limit) return void chunks.push(chunk);
      request.off("data", onData);
      resolve(null);
    };
    request.on("data", onData);
    request.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.once("error", () => resolve(null));
  });
}
