import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { FORM_REACHED_PATH } from "~/insight/paths";
import { scrapeMetrics, sumOf } from "../harness/metrics";
import { makePageViewsFolder } from "../harness/real-servers";
import { signUp } from "../harness/signup-client";
import { until } from "../harness/wait";
import { builtServerSuite, filledForm } from "./suite";

/**
 * The campaign counts (docs/insight.md) as /metrics shows them: page views wherever answered and visitors who reached
 * the form, by campaign and referring site. Sign-up posts and sign-ups accepted, and the browser's side (the boot's
 * beacon, no cookie, no storage): tests/e2e/insight.spec.ts; the bounds: unit/insight-labels.
 */

const METRICS_TOKEN = "insight-metrics-token-0123456789";
const pageViewsFolder = makePageViewsFolder();
afterAll(() => rmSync(pageViewsFolder, { recursive: true }));
const { startBalancer, serverForAll } = builtServerSuite((standIn) => ({
  WEBHOOK_URL: standIn.webhookUrl,
  METRICS_TOKEN,
  TRUST_PROXY: "1",
  PAGE_VIEWS_FOLDER: pageViewsFolder,
}));
/** One instance for every test: each marks what it counts with labels of its own. */
const shared = serverForAll();

const metricsOf = (origin: string) => scrapeMetrics(origin, METRICS_TOKEN);
/** A referring site no other test uses: what marks a test's views and beacons (a campaign is (other) until proven). */
const freshSite = () => `s${randomUUID().slice(0, 8)}.example.com`;

describe("the app counts", () => {
  // The early answer's views (a 304 too, HEAD none): tests/server/headers.test.ts.
  it("a view of the page Remix renders, by referring site host; data requests, other paths and pages the shipped nginx counts, none", async () => {
    const app = shared();
    const query = "?utm_source=News&utm_campaign=lancamento";
    const referer = { referer: "https://www.Instagram.com/p/abc?igsh=123" };

    expect((await fetch(`${app.origin}/${query}`, { headers: referer })).status).toBe(200);
    expect((await fetch(`${app.origin}/${query}&_data=routes%2F_index`, { headers: referer })).status).toBe(200);
    expect((await fetch(`${app.origin}/planos${query}`, { headers: referer })).status).toBe(404);
    const fromNginx = await fetch(`${app.origin}/${query}`, { headers: { ...referer, "x-view-counted": "1" } });
    expect(fromNginx.status).toBe(200);

    const samples = await metricsOf(app.origin);
    expect(sumOf(samples, "page_views_total", { referrer: "instagram.com" })).toBe(1);
  });

  it("a visitor who reached the form, from the boot's beacon (204); a beacon past 1 KB is refused (413) and counts nothing; neither is an answer to a visitor", async () => {
    const app = shared();
    const site = freshSite();
    const answered = async () => sumOf(await metricsOf(app.origin), "http_responses_total");
    const answeredBefore = await answered();
    const beacon = (body: string) =>
      fetch(`${app.origin}${FORM_REACHED_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8" },
        body,
      });
    expect((await beacon(`utm_source=news&referrer=${site}`)).status).toBe(204);
    expect((await beacon(`utm_source=news&referrer=${site}&padding=${"x".repeat(1024)}`)).status).toBe(413);
    expect((await fetch(`${app.origin}${FORM_REACHED_PATH}`)).status).toBe(404);

    expect(sumOf(await metricsOf(app.origin), "form_reached_total", { referrer: site })).toBe(1);
    // Their 204s would dilute the share of server errors PrevlyServerErrors watches.
    expect(await answered()).toBe(answeredBefore);
  });
});

describe("through the shipped nginx", () => {
  const behindBalancer = async () => ({
    app: shared(),
    origin: (await startBalancer([shared().origin], { pageViewsFolder })).origin,
  });

  it("counts each view it answers once, from its cache or not, however / is spelled, with its campaign; HEAD, a data request, a post and another path none", async () => {
    const { app, origin } = await behindBalancer();
    const site = freshSite();
    const campaign = `c${randomUUID().slice(0, 8)}`;
    const headers = { referer: `https://${site}/` };
    const link = `?utm_source=news&utm_campaign=${campaign}`;
    // The campaign is a label once a sign-up carried it.
    const signup = filledForm(`${campaign}@exemplo.com.br`);
    expect((await signUp(origin, signup, { headers: { referer: `${origin}/${link}` } })).status).toBe(200);
    const cacheStatuses: string[] = [];
    for (const path of ["/", "//", "/%2F", "/", "//"]) {
      const response = await fetch(`${origin}${path}${link}&fbclid=${randomUUID()}`, { headers });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      cacheStatuses.push(response.headers.get("x-cache-status") ?? "");
    }
    expect(cacheStatuses).toContain("HIT");
    expect((await fetch(`${origin}/${link}`, { method: "HEAD", headers })).status).toBe(200);
    expect((await fetch(`${origin}/${link}&_data=routes%2F_index`, { headers })).status).toBe(200);
    expect((await fetch(`${origin}/planos${link}`, { headers })).status).toBe(404);

    // One view after them all, counted after theirs would have been.
    const marker = { referrer: freshSite() };
    await (await fetch(`${origin}/`, { headers: { referer: `https://${marker.referrer}/` } })).arrayBuffer();
    await until(async () => sumOf(await metricsOf(app.origin), "page_views_total", marker) === 1, {
      what: "the marker's view counted",
    });
    const views = sumOf(await metricsOf(app.origin), "page_views_total", { referrer: site });
    const ofTheCampaign = sumOf(await metricsOf(app.origin), "page_views_total", {
      referrer: site,
      utm_source: "news",
      utm_campaign: campaign,
    });
    expect([views, ofTheCampaign]).toEqual([5, 5]);
  });

  it("the boot's beacons from one address never spend the sign-ups' burst there: their own burst of 120 counts 120, then a sign-up goes through; past the beacon's own limit nginx answers 204 itself", async () => {
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
    // Ten at a time: an instance takes 32 counts at once, past which nginx drops them by design. Spent from the
    // sign-ups' burst of 60 (10 a second), 120 would lose counts and the sign-up unless they took 6 s.
    for (let wave = 0; wave < 12; wave++) expect(new Set(await beacons(10))).toEqual(new Set([204]));
    const { status } = await signUp(origin, filledForm("depois-dos-beacons@exemplo.com.br"));
    expect(status).toBe(200);
    expect(sumOf(await metricsOf(app.origin), "form_reached_total", { referrer: site })).toBe(120);
    expect(new Set(await beacons(600))).toEqual(new Set([204]));
  });
});
