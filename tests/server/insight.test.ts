import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { FORM_REACHED_PATH, VIEW_PATH } from "~/insight/paths";
import type { RunningApp } from "../harness/app-server";
import { scrapeMetrics, sumOf } from "../harness/metrics";
import { startNginxBalancer, type RunningNginx } from "../harness/real-servers";
import { postSignup, signUp } from "../harness/signup-client";
import { until } from "../harness/wait";
import { builtServerSuite } from "./suite";

/**
 * The campaign counts (docs/insight.md) as /metrics shows them: page views wherever answered, visitors who reached
 * the form, sign-up posts and sign-ups accepted, by campaign and referring site, bounded. The browser's side (the
 * boot's beacon, no cookie, no storage) is tests/e2e/insight.spec.ts.
 */

const METRICS_TOKEN = "insight-metrics-token-0123456789";
const { start, serverForAll, visitor } = builtServerSuite((standIn) => ({
  WEBHOOK_URL: standIn.webhookUrl,
  METRICS_TOKEN,
}));
/** The instance of the tests that count only campaigns of their own (freshCampaign). */
const shared = serverForAll();

const balancers: RunningNginx[] = [];
afterEach(async () => {
  await Promise.all(balancers.splice(0).map((balancer) => balancer.stop()));
});

const metricsOf = (origin: string) => scrapeMetrics(origin, METRICS_TOKEN);
/** A referring site no other test uses: what marks a test's views and beacons (a campaign is (other) until proven). */
const freshSite = () => `s${randomUUID().slice(0, 8)}.example.com`;
/** Bot-trap fields of a person, an address and a (relayed unverified: no HCAPTCHA_SECRET) captcha token. */
const signupFields = (email: string) => ({ ...visitor(), email, hcaptchaToken: `P1_${randomUUID()}` });

describe("the app counts", () => {
  it("a view of the page per GET it answers, by referring site host; a revalidation (304) too; HEAD, data requests, other paths and pages the shipped nginx counts, none", async () => {
    const app = await start();
    const query = "?utm_source=News&utm_campaign=lancamento";
    const referer = { referer: "https://www.Instagram.com/p/abc?igsh=123" };

    const page = await fetch(`${app.origin}/${query}`, { headers: referer });
    expect(page.status).toBe(200);
    const etag = page.headers.get("etag")!;
    const revalidated = await fetch(`${app.origin}/${query}`, { headers: { ...referer, "if-none-match": etag } });
    expect(revalidated.status).toBe(304);
    expect((await fetch(`${app.origin}/${query}`, { method: "HEAD", headers: referer })).status).toBe(200);
    expect((await fetch(`${app.origin}/${query}&_data=routes%2F_index`, { headers: referer })).status).toBe(200);
    expect((await fetch(`${app.origin}/planos${query}`, { headers: referer })).status).toBe(404);
    const fromNginx = await fetch(`${app.origin}/${query}`, { headers: { ...referer, "x-view-counted": "1" } });
    expect(fromNginx.status).toBe(200);

    const samples = await metricsOf(app.origin);
    expect(sumOf(samples, "page_views_total", { referrer: "instagram.com" })).toBe(2);
    expect(sumOf(samples, "page_views_total")).toBe(2);
  });

  it("a view nginx's mirror reports (GET /__insight/view?<the page's query>), answered 204 and never stored; our own host is (self), no Referer (direct); neither it nor the beacon counts as an answer to a visitor", async () => {
    const app = await start();
    const campaign = "lancamento";
    const reported = await fetch(`${app.origin}${VIEW_PATH}?utm_source=news&utm_campaign=${campaign}`);
    expect(reported.status).toBe(204);
    expect(reported.headers.get("cache-control")).toBe("no-store");
    await fetch(`${app.origin}${VIEW_PATH}?utm_source=news&utm_campaign=${campaign}`, {
      headers: { referer: `${app.origin}/?utm_source=news` },
    });
    await fetch(`${app.origin}${VIEW_PATH}?utm_source=news&utm_campaign=${campaign}&_data=routes%2F_index`);
    const beacon = await fetch(`${app.origin}${FORM_REACHED_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8" },
      body: `utm_source=news&utm_campaign=${campaign}`,
    });
    expect(beacon.status).toBe(204);

    const samples = await metricsOf(app.origin);
    expect(sumOf(samples, "page_views_total", { referrer: "(direct)" })).toBe(1);
    expect(sumOf(samples, "page_views_total", { referrer: "(self)" })).toBe(1);
    expect(sumOf(samples, "page_views_total")).toBe(2);
    // The counts' own requests (the mirror's views, the beacon) are no answers to visitors: their 204s would dilute
    // the share of server errors PrevlyServerErrors watches.
    expect(sumOf(samples, "http_responses_total")).toBe(0);
  });

  it("a visitor who reached the form, from the boot's beacon (204); a beacon past 1 KB is refused (413) and counts nothing", async () => {
    const app = shared();
    const site = freshSite();
    const beacon = (body: string) =>
      fetch(`${app.origin}${FORM_REACHED_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8" },
        body,
      });
    expect((await beacon(`utm_source=news&referrer=${site}`)).status).toBe(204);
    expect((await beacon(`utm_source=news&referrer=${site}&padding=${"x".repeat(1024)}`)).status).toBe(413);
    expect((await fetch(`${app.origin}${FORM_REACHED_PATH}`)).status).toBe(404);

    const samples = await metricsOf(app.origin);
    expect(sumOf(samples, "form_reached_total", { referrer: site })).toBe(1);
  });

  it("the action counts each post for the campaign of the page posted from (its Referer) once a sign-up vouched for it, and a press once per network", async () => {
    const app = await start({ TRUST_PROXY: "1" });
    const referer = { referer: `${app.origin}/?utm_source=news&utm_campaign=lancamento` };
    const from = (client: string) => ({ headers: referer, client });
    expect((await signUp(app.origin, signupFields("com-js@exemplo.com.br"), from("2001:db8:7:1::1"))).status).toBe(200);
    expect((await postSignup(app.origin, signupFields("sem-js@exemplo.com.br"), from("2001:db8:7:2::1"))).status).toBe(
      200,
    );
    expect((await signUp(app.origin, signupFields("sem-arroba"), from("203.0.113.7"))).status).toBe(400);

    const samples = await metricsOf(app.origin);
    const labels = { utm_source: "news", utm_medium: "(none)", utm_campaign: "lancamento" };
    expect(sumOf(samples, "signup_posts_total", { ...labels, javascript: "on" })).toBe(2);
    expect(sumOf(samples, "signups_accepted_total", { ...labels, javascript: "off" })).toBe(1);
    expect(sumOf(samples, "form_pressed_total")).toBe(2);
  });
});

describe("through the shipped nginx", () => {
  const proxied = serverForAll(() => ({ TRUST_PROXY: "1" }));
  type Deployment = { app: RunningApp; origin: string };
  async function behindBalancer(): Promise<Deployment> {
    const app = proxied();
    const balancer = await startNginxBalancer([app.origin]);
    balancers.push(balancer);
    return { app, origin: balancer.origin };
  }

  it("five page loads within a second, answered from its cache, count five views, each once, however the address spells / (a link built as `site/` + `/?utm_…`)", async () => {
    const { app, origin } = await behindBalancer();
    const site = freshSite();
    const cacheStatuses: string[] = [];
    for (const path of ["/", "//", "/%2F", "/", "//"]) {
      const response = await fetch(`${origin}${path}?utm_source=news`, { headers: { referer: `https://${site}/` } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      cacheStatuses.push(response.headers.get("x-cache-status") ?? "");
    }
    expect(cacheStatuses).toContain("HIT");

    const views = { referrer: site };
    // The mirror reports each view once its answer is out; the page the app rendered for the cache was never counted
    // on its own (it would have been, before the first answer).
    await until(async () => sumOf(await metricsOf(app.origin), "page_views_total", views) >= 5, {
      what: "five views counted",
    });
    expect(sumOf(await metricsOf(app.origin), "page_views_total", views)).toBe(5);
  });

  it("counts no view for HEAD, a data request, the form's post, another path; its mirror's path is a 404 from outside", async () => {
    const { app, origin } = await behindBalancer();
    const site = freshSite();
    const headers = { referer: `https://${site}/` };
    expect((await fetch(`${origin}/`, { method: "HEAD", headers })).status).toBe(200);
    expect((await fetch(`${origin}/?_data=routes%2F_index`, { headers })).status).toBe(200);
    expect((await fetch(`${origin}/planos`, { headers })).status).toBe(404);
    expect((await fetch(`${origin}${VIEW_PATH}`, { headers })).status).toBe(404);
    expect((await postSignup(origin, signupFields("nginx@exemplo.com.br"), { headers })).status).toBe(200);

    // One view after them all, reported after theirs would have been.
    const marker = { referrer: freshSite() };
    await (await fetch(`${origin}/`, { headers: { referer: `https://${marker.referrer}/` } })).arrayBuffer();
    await until(async () => sumOf(await metricsOf(app.origin), "page_views_total", marker) === 1, {
      what: "the marker's view counted",
    });
    expect(sumOf(await metricsOf(app.origin), "page_views_total", { referrer: site })).toBe(0);
  });

  it("the boot's beacons from one address never spend the sign-ups' burst there: 70 in a moment count 70, then a sign-up goes through; past the beacon's own limit nginx answers 204 itself", async () => {
    const { app, origin } = await behindBalancer();
    const site = freshSite();
    const beacons = (count: number) =>
      Promise.all(
        Array.from({ length: count }, () =>
          fetch(`${origin}${FORM_REACHED_PATH}`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8" },
            body: `referrer=${site}`,
          }).then((response) => response.status),
        ),
      );
    // Ten at a time: an instance takes 32 counts at once, past which nginx drops them by design.
    for (let wave = 0; wave < 7; wave++) expect(new Set(await beacons(10))).toEqual(new Set([204]));
    const { status } = await signUp(origin, signupFields("depois-dos-beacons@exemplo.com.br"));
    expect(status).toBe(200);
    expect(sumOf(await metricsOf(app.origin), "form_reached_total", { referrer: site })).toBe(70);
    expect(new Set(await beacons(600))).toEqual(new Set([204]));
  });
});
