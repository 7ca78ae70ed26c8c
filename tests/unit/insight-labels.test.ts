import { randomUUID } from "node:crypto";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  campaignOf,
  campaignQueryOfPost,
  DIRECT,
  LABEL_LENGTH,
  labelValue,
  NONE,
  OTHER,
  referringSite,
  SELF,
} from "~/insight/attribution.server";
import { BoundedLabels } from "~/insight/bounded-labels.server";
import { BOUNDS, Insight } from "~/insight/insight.server";
import { campaignQuery } from "~/insight/paths";
import { DATA_REQUEST_HEADER } from "~/server/guards.server";

describe("a campaign's label values (app/insight/attribution.server.ts)", () => {
  it.each([
    ["Lançamento de Verão!", "lancamento_de_verao"],
    ["  News  ", "news"],
    ["E-Mail", "e-mail"],
    ["black friday 2026", "black_friday_2026"],
    ["ＮＥＷＳ", "news"],
    ["<script>alert(1)</script>", "script_alert_1_script"],
    ["(direct)", "direct"],
    ["instagram.stories_v2", "instagram.stories_v2"],
    // Nothing is left of punctuation alone or an empty value.
    ["!!! ???", null],
    ["", null],
  ])("%j is counted as %j", (raw, value) => {
    expect(labelValue(raw)).toBe(value);
  });

  it("is cut to its length", () => {
    expect(labelValue("a".repeat(10_000))).toBe("a".repeat(LABEL_LENGTH));
    expect(labelValue(`${"b".repeat(LABEL_LENGTH - 1)} c`)).toBe("b".repeat(LABEL_LENGTH - 1));
  });

  const labels = (utm_source: string, utm_medium: string, utm_campaign: string) => ({
    utm_source,
    utm_medium,
    utm_campaign,
  });
  const read = (query: string) => campaignOf(new URLSearchParams(query));

  it("reads utm_source, utm_medium and utm_campaign from the page's query, '+' as a space; an absent one is (none)", () => {
    expect(read("utm_source=Newsletter&utm_campaign=black+friday&fbclid=IwAR1")).toEqual(
      labels("newsletter", NONE, "black_friday"),
    );
    expect(read("utm_source=&utm_medium=%20")).toEqual(labels(NONE, NONE, NONE));
  });

  it("reads a post's campaign from its own address when the form carried one there (else its Referer's: below), and none from no page or garbage", () => {
    const post = (url: string, referer: string | null) => campaignOf(campaignQueryOfPost(url, referer));
    const carried = "https://prevly.com.br/?index&utm_source=tv&utm_campaign=estreia";
    expect(post(carried, "https://prevly.com.br/?index")).toEqual(labels("tv", NONE, "estreia"));
    expect(post("https://prevly.com.br/?index", null)).toEqual(labels(NONE, NONE, NONE));
    expect(post("https://prevly.com.br/?index", "not an address")).toEqual(labels(NONE, NONE, NONE));
  });

  it("carries a page's campaign parameters alone, present and not empty, each cut short, into the form's next post", () => {
    const query = new URLSearchParams(`utm_source=News+Letter&utm_medium=&fbclid=x&utm_campaign=${"c".repeat(500)}`);
    expect(campaignQuery(query)).toBe(`utm_source=News+Letter&utm_campaign=${"c".repeat(160)}`);
    expect(campaignQuery(new URLSearchParams("gclid=1"))).toBe("");
  });

  it.each([
    ["www.Google.com", "google.com"],
    ["l.facebook.com", "l.facebook.com"],
    ["com.google.android.gm", "com.google.android.gm"],
    ["prevly.com.br", SELF],
    [null, DIRECT],
    ["", DIRECT],
    // No site but by a host name.
    ["joao.silva arroba gmail.com", OTHER],
    ["91234-5678", OTHER],
    ["12.345.678-9", OTHER],
    ["01310-100", OTHER],
    ["am9hb0BnbWFpbC5jb20=", OTHER],
    ["192.168.0.1", OTHER],
  ])("the referring site %j is %j: its host without www., the site itself whatever the port", (referrer, site) => {
    expect(referringSite(referrer, "prevly.com.br:443")).toBe(site);
  });
});

describe("bounded labels (app/insight/bounded-labels.server.ts)", () => {
  const bounds = { valuesPerLabel: 5, seriesPerMetric: 8, provenOnly: ["utm_campaign"] };

  it("a campaign is (other) until a sign-up proves it, then itself, up to its label's places; a referring site takes a place first come", () => {
    const bounded = new BoundedLabels(bounds);
    const view = (campaign: string, referrer = DIRECT) =>
      bounded.labels("views", { utm_campaign: campaign, referrer }, {}).labels;
    expect(view("lancamento")).toEqual({ utm_campaign: OTHER, referrer: DIRECT });
    bounded.prove({ utm_campaign: "lancamento" });
    expect(view("lancamento", "google.com")).toEqual({ utm_campaign: "lancamento", referrer: "google.com" });
    for (let campaign = 0; campaign < bounds.valuesPerLabel; campaign++)
      bounded.prove({ utm_campaign: `c${campaign}` });
    expect([view("c3").utm_campaign, view("c4").utm_campaign]).toEqual(["c3", OTHER]);
    for (let site = 0; site < bounds.valuesPerLabel; site++) view(NONE, `site${site}.com`);
    expect(view(NONE, "late.com").referrer).toBe(OTHER);
  });

  it("caps each metric's series: past the cap a new one is (other) in every bounded label, its fixed labels kept", () => {
    const bounded = new BoundedLabels(bounds);
    const series = new Set<string>();
    // 5 sources × 5 referring sites: 25 combinations, 8 of them kept.
    for (let source = 0; source < 5; source++)
      for (let site = 0; site < 5; site++) {
        const { labels } = bounded.labels(
          "posts",
          { utm_source: `s${source}`, referrer: `r${site}.com` },
          { javascript: "on" },
        );
        series.add(JSON.stringify(labels));
      }
    expect(series.size).toBe(bounds.seriesPerMetric + 1);
    expect(bounded.labels("posts", { utm_source: "s4", referrer: "r4.com" }, { javascript: "off" }).labels).toEqual({
      utm_source: OTHER,
      referrer: OTHER,
      javascript: "off",
    });
    // Another metric has series of its own.
    expect(bounded.labels("views", { utm_source: "s4", referrer: "r4.com" }, {}).labels.utm_source).toBe("s4");
  });

  it("a series of proven values takes the place of the oldest series holding unproven ones when the metric is full; what it replaces leaves /metrics", () => {
    const dropped: string[] = [];
    const bounded = new BoundedLabels({ ...bounds, valuesPerLabel: 10, seriesPerMetric: 3 }, (metric, labels) =>
      dropped.push(`${metric} ${labels.utm_source}/${labels.utm_campaign}`),
    );
    const post = (source: string, campaign: string) =>
      bounded.labels("posts", { utm_source: source, utm_campaign: campaign }, { javascript: "on" }).labels;
    post("s1", "junk1");
    post("s2", "junk2");
    post("news", "junk3");
    bounded.prove({ utm_source: "news", utm_campaign: "lancamento" });
    expect(post("news", "lancamento")).toEqual({ utm_source: "news", utm_campaign: "lancamento", javascript: "on" });
    expect(dropped).toEqual([`posts s1/${OTHER}`]);
    // Unproven values never take a proven series' place.
    expect(post("s9", "junk9")).toEqual({ utm_source: OTHER, utm_campaign: OTHER, javascript: "on" });
    expect(post("news", "lancamento").utm_campaign).toBe("lancamento");
  });

  it("our own values never take a place, and a series is first only once", () => {
    const bounded = new BoundedLabels({ ...bounds, valuesPerLabel: 1 });
    expect(bounded.labels("views", { referrer: DIRECT }, {}).first).toBe(true);
    expect(bounded.labels("views", { referrer: DIRECT }, {}).first).toBe(false);
    expect(bounded.labels("views", { referrer: SELF }, {}).labels.referrer).toBe(SELF);
    expect(bounded.labels("views", { referrer: "google.com" }, {}).labels.referrer).toBe("google.com");
    expect(bounded.labels("views", { referrer: "bing.com" }, {}).labels.referrer).toBe(OTHER);
  });
});

describe("the campaign counts (app/insight/insight.server.ts)", () => {
  const page = (query: string) => `https://prevly.com.br/?${query}`;
  const postFrom = (query: string, headers: Record<string, string> = {}) =>
    new Request("https://prevly.com.br/?index", { method: "POST", headers: { referer: page(query), ...headers } });
  /** A metric's counts above zero, by its labels' values joined. */
  const counted = async (registry: Registry, metric: string) =>
    Object.fromEntries(
      (await registry.getSingleMetric(metric)!.get()).values
        .filter(({ value }) => value > 0)
        .map(({ labels, value }) => [Object.values(labels).join(" "), value]),
    );

  it("a person's data in a link is never a label: every probe reads (other), until a sign-up vouches for a campaign", async () => {
    const registry = new Registry();
    const insight = new Insight(registry);
    // Whatever its shape (an address, a phone, a name), an unproven value is never read.
    const probes = ["joao.silva arroba gmail.com", "91234-5678", "Joao da Silva", "joao%25EF%25BC%25A0gmail.com"];
    for (const probe of probes)
      for (const name of ["utm_source", "utm_medium", "utm_campaign"])
        insight.pageAnswered(
          new Request(page(`${name}=${encodeURIComponent(probe)}`), {
            headers: { referer: "https://www.google.com/search" },
          }),
        );
    const views = await counted(registry, "page_views_total");
    expect(new Set(Object.keys(views).flatMap((labels) => labels.split(" ")))).toEqual(
      new Set([NONE, OTHER, "google.com"]),
    );
    expect(Object.values(views).reduce((sum, count) => sum + count, 0)).toBe(3 * probes.length);
    insight.signupPosted(postFrom("utm_source=news&utm_campaign=lancamento"), "relayed", true);
    insight.pageAnswered(new Request(page("utm_source=news&utm_campaign=lancamento")));
    expect((await counted(registry, "page_views_total"))[`news ${NONE} lancamento (direct)`]).toBe(1);
  });

  it("a post counts for its page's campaign, with JavaScript or without, but the bot trap's; a press as one more visitor", async () => {
    const registry = new Registry();
    const insight = new Insight(registry);
    const campaign = "utm_source=news&utm_campaign=lancamento";
    insight.signupPosted(postFrom(campaign), "queued", true);
    for (const outcome of ["bot", "bot", "invalid-email", "captcha-missing"])
      insight.signupPosted(postFrom(campaign), outcome, false);
    insight.signupPosted(postFrom(campaign, { [DATA_REQUEST_HEADER]: "yes" }), "known-email", true);
    expect(await counted(registry, "signup_posts_total")).toEqual({
      "news (none) lancamento off": 3,
      "news (none) lancamento on": 1,
    });
    expect(await counted(registry, "signups_accepted_total")).toEqual({ "news (none) lancamento off": 1 });
    expect(await counted(registry, "form_pressed_total")).toEqual({ "": 2 });
  });

  it("stay within bounds: 1,000 page views, each from a campaign, a source and a referring site never seen before, and 1,000 more grow nothing", async () => {
    const registry = new Registry();
    const insight = new Insight(registry);
    const random = () => randomUUID().replaceAll("-", "");
    const viewNewCampaigns = (count: number) => {
      for (let view = 0; view < count; view++) {
        const page = `https://prevly.com.br/?utm_source=${random()}&utm_campaign=${random()}`;
        insight.pageAnswered(new Request(page, { headers: { referer: `https://${random()}.example/` } }));
      }
    };
    /** The exposition's lines without their counts: what /metrics holds apart from the numbers. */
    const seriesShown = async () => (await registry.metrics()).replace(/ \d+$/gm, "");

    viewNewCampaigns(1_000);
    const shownAfterFirst = await seriesShown();
    const { values } = await registry.getSingleMetric("page_views_total")!.get();
    expect(values.reduce((sum, { value }) => sum + value, 0)).toBe(1_000);
    // Its cap, plus the all-(other) series.
    expect(values.length).toBeLessThanOrEqual(BOUNDS.seriesPerMetric + 1);
    for (const label of ["utm_source", "utm_campaign", "referrer"]) {
      expect(new Set(values.map((sample) => sample.labels[label])).size, label).toBeLessThanOrEqual(
        BOUNDS.valuesPerLabel + 1,
      );
    }
    viewNewCampaigns(1_000);
    expect(await seriesShown()).toBe(shownAfterFirst);
  });
});
