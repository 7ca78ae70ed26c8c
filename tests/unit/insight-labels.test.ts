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
  ])("%j is counted as %j", (raw, value) => {
    expect(labelValue(raw)).toBe(value);
  });

  it("is cut to its length, and nothing is left of punctuation alone or an empty value", () => {
    expect(labelValue("a".repeat(10_000))).toBe("a".repeat(LABEL_LENGTH));
    expect(labelValue(`${"b".repeat(LABEL_LENGTH - 1)} c`)).toBe("b".repeat(LABEL_LENGTH - 1));
    expect(labelValue("!!! ???")).toBeNull();
    expect(labelValue("")).toBeNull();
  });

  it.each([
    "maria.silva@exemplo.com.br",
    "maria.silva＠exemplo.com.br",
    "maria.silva%40exemplo.com.br",
    "maria.silva%2540exemplo.com.br",
    "maria.silva&#64;exemplo.com.br",
    "maria.silva&#x40;exemplo.com.br",
    "maria.silva&commat;exemplo.com.br",
    "maria.silva (at) exemplo.com.br",
    "maria.silva[arroba]exemplo.com.br",
    "11987654321",
    "(11) 98765-4321",
    "+55 11 98765 4321",
    "123.456.789-09",
    "(11) 98765–4321",
    "+55 11 98765—4321",
    "11_98765_4321",
    "11,98765,4321",
    "123·456·789·09",
    "11\u200b98765\u200b4321",
    "11%2098765%204321",
    "11%252098765%25204321",
  ])("never keeps a person's data a link carried: %j is (other)", (raw) => {
    expect(labelValue(raw)).toBe(OTHER);
  });

  it("keeps a date in a campaign's name", () => {
    expect(labelValue("promo_20261126")).toBe("promo_20261126");
    expect(labelValue("black-friday-2026-11-27")).toBe("black-friday-2026-11-27");
    expect(labelValue("at_home")).toBe("at_home");
    expect(labelValue("arroba-day")).toBe("arroba-day");
  });

  it("reads utm_source, utm_medium and utm_campaign from the page's query, '+' as a space; an absent one is (none)", () => {
    expect(campaignOf(new URLSearchParams("utm_source=Newsletter&utm_campaign=black+friday&fbclid=IwAR1"))).toEqual({
      utm_source: "newsletter",
      utm_medium: NONE,
      utm_campaign: "black_friday",
    });
    expect(campaignOf(new URLSearchParams("utm_source=&utm_medium=%20"))).toEqual({
      utm_source: NONE,
      utm_medium: NONE,
      utm_campaign: NONE,
    });
  });

  it("reads a post's campaign from its own address when the form carried one there, else from the page it was posted from (its Referer)", () => {
    const page = "https://prevly.com.br/?utm_source=tv&utm_medium=ctv&utm_campaign=estreia";
    expect(campaignOf(campaignQueryOfPost("https://prevly.com.br/?index", page))).toEqual({
      utm_source: "tv",
      utm_medium: "ctv",
      utm_campaign: "estreia",
    });
    const carried = "https://prevly.com.br/?index&utm_source=tv&utm_campaign=estreia";
    expect(campaignOf(campaignQueryOfPost(carried, "https://prevly.com.br/?index"))).toEqual({
      utm_source: "tv",
      utm_medium: NONE,
      utm_campaign: "estreia",
    });
    const none = { utm_source: NONE, utm_medium: NONE, utm_campaign: NONE };
    expect(campaignOf(campaignQueryOfPost("https://prevly.com.br/?index", null))).toEqual(none);
    expect(campaignOf(campaignQueryOfPost("https://prevly.com.br/?index", "not an address"))).toEqual(none);
  });

  it("carries a page's campaign parameters alone, present and not empty, each cut short, into the form's next post", () => {
    const query = new URLSearchParams(`utm_source=News+Letter&utm_medium=&fbclid=x&utm_campaign=${"c".repeat(500)}`);
    expect(campaignQuery(query)).toBe(`utm_source=News+Letter&utm_campaign=${"c".repeat(160)}`);
    expect(campaignQuery(new URLSearchParams("gclid=1"))).toBe("");
  });

  it("names the referring site by its host, without www.; none is (direct), the site itself (self) whatever the port", () => {
    expect(referringSite("www.Google.com", "prevly.com.br")).toBe("google.com");
    expect(referringSite("l.facebook.com", "prevly.com.br")).toBe("l.facebook.com");
    expect(referringSite("com.google.android.gm", "prevly.com.br")).toBe("com.google.android.gm");
    expect(referringSite("prevly.com.br", "prevly.com.br:443")).toBe(SELF);
    expect(referringSite(null, "prevly.com.br")).toBe(DIRECT);
    expect(referringSite("", "prevly.com.br")).toBe(DIRECT);
  });
});

describe("bounded labels (app/insight/bounded-labels.server.ts)", () => {
  const bounds = { valuesPerLabel: 5, seriesPerMetric: 8 };

  it("1,000 random campaign names: the first come keep their names, the rest are one (other) series", () => {
    const bounded = new BoundedLabels(bounds);
    const series = new Set<string>();
    const names = Array.from({ length: 1_000 }, () => randomUUID().slice(0, 12));
    for (const name of names)
      series.add(JSON.stringify(bounded.labels("views", { utm_campaign: name, utm_source: "news" }, {}).labels));
    expect(series.size).toBe(bounds.valuesPerLabel + 1);
    expect(bounded.labels("views", { utm_campaign: names[0]!, utm_source: "news" }, {}).labels.utm_campaign).toBe(
      names[0],
    );
    expect(bounded.labels("views", { utm_campaign: names[999]!, utm_source: "news" }, {}).labels.utm_campaign).toBe(
      OTHER,
    );
  });

  it("caps each metric's series: past the cap a new one is (other) in every bounded label, its fixed labels kept", () => {
    const bounded = new BoundedLabels(bounds);
    const series = new Set<string>();
    // 5 sources × 5 campaigns named: 25 combinations, 8 of them kept.
    for (let source = 0; source < 5; source++)
      for (let campaign = 0; campaign < 5; campaign++) {
        const { labels } = bounded.labels(
          "posts",
          { utm_source: `s${source}`, utm_campaign: `c${campaign}` },
          { javascript: "on" },
        );
        series.add(JSON.stringify(labels));
      }
    expect(series.size).toBe(bounds.seriesPerMetric + 1);
    expect(bounded.labels("posts", { utm_source: "s4", utm_campaign: "c4" }, { javascript: "off" }).labels).toEqual({
      utm_source: OTHER,
      utm_campaign: OTHER,
      javascript: "off",
    });
    // Another metric has series of its own.
    expect(bounded.labels("views", { utm_source: "s4", utm_campaign: "c4" }, {}).labels.utm_source).toBe("s4");
  });

  it("a campaign a sign-up proves takes the place of a script's junk, and keeps it against more junk; what it replaces leaves /metrics", () => {
    const dropped: string[] = [];
    const bounded = new BoundedLabels(bounds, (metric, labels) => dropped.push(`${metric} ${labels.utm_campaign}`));
    const view = (campaign: string) => bounded.labels("views", { utm_campaign: campaign }, {}).labels.utm_campaign;
    for (let junk = 0; junk < bounds.valuesPerLabel; junk++) view(`junk${junk}`);
    expect(view("lancamento")).toBe(OTHER);
    bounded.prove({ utm_campaign: "lancamento", utm_source: NONE });
    expect(dropped).toEqual(["views junk0"]);
    expect(view("lancamento")).toBe("lancamento");
    expect(view("junk0")).toBe(OTHER);
    expect(view("more-junk")).toBe(OTHER);
    expect(view("lancamento")).toBe("lancamento");
    // Once every place is proven, a newly proven value waits for one: none is given up.
    for (let campaign = 0; campaign < bounds.valuesPerLabel; campaign++)
      bounded.prove({ utm_campaign: `real${campaign}` });
    expect([view("lancamento"), view("real3"), view("real4")]).toEqual(["lancamento", "real3", OTHER]);
  });

  it("a series of proven values takes the place of the oldest series holding junk when the metric is full", () => {
    const dropped: string[] = [];
    const bounded = new BoundedLabels({ valuesPerLabel: 10, seriesPerMetric: 3 }, (metric, labels) =>
      dropped.push(`${metric} ${labels.utm_source}/${labels.utm_campaign}`),
    );
    const post = (source: string, campaign: string) =>
      bounded.labels("posts", { utm_source: source, utm_campaign: campaign }, { javascript: "on" }).labels;
    post("s1", "junk1");
    post("s2", "junk2");
    post("news", "junk3");
    bounded.prove({ utm_source: "news", utm_campaign: "lancamento" });
    expect(post("news", "lancamento")).toEqual({ utm_source: "news", utm_campaign: "lancamento", javascript: "on" });
    expect(dropped).toEqual(["posts s1/junk1"]);
    // Junk never takes a proven series' place.
    expect(post("s9", "junk9")).toEqual({ utm_source: OTHER, utm_campaign: OTHER, javascript: "on" });
    expect(post("news", "lancamento").utm_campaign).toBe("lancamento");
  });

  it("our own values never take a place, and a series is first only once", () => {
    const bounded = new BoundedLabels({ valuesPerLabel: 1, seriesPerMetric: 10 });
    expect(bounded.labels("views", { referrer: DIRECT }, {}).first).toBe(true);
    expect(bounded.labels("views", { referrer: DIRECT }, {}).first).toBe(false);
    expect(bounded.labels("views", { referrer: SELF }, {}).labels.referrer).toBe(SELF);
    expect(bounded.labels("views", { referrer: "google.com" }, {}).labels.referrer).toBe("google.com");
    expect(bounded.labels("views", { referrer: "bing.com" }, {}).labels.referrer).toBe(OTHER);
  });
});

describe("the campaign counts (app/insight/insight.server.ts)", () => {
  it("a campaign that converts is counted as itself after a script took every place: its views from the sign-up on, the sign-up itself; the junk it replaced leaves /metrics", async () => {
    const registry = new Registry();
    const insight = new Insight(registry);
    const page = (campaign: string) => `https://prevly.com.br/?utm_source=news&utm_campaign=${campaign}`;
    for (let junk = 0; junk < BOUNDS.valuesPerLabel; junk++) insight.pageAnswered(new Request(page(`junk${junk}`)));
    insight.pageAnswered(new Request(page("lancamento")));
    const post = new Request("https://prevly.com.br/?index", {
      method: "POST",
      headers: { referer: page("lancamento") },
    });
    insight.signupPosted(post, "relayed");
    insight.pageAnswered(new Request(page("lancamento")));
    const counted = async (metric: string) =>
      Object.fromEntries(
        (await registry.getSingleMetric(metric)!.get()).values
          .filter(({ value }) => value > 0)
          .map(({ labels, value }) => [
            `${labels.utm_campaign}${labels.javascript ? ` ${labels.javascript}` : ""}`,
            value,
          ]),
      );
    const views = await counted("page_views_total");
    expect([views.lancamento, views[OTHER], views.junk0]).toEqual([1, 1, undefined]);
    expect(Object.keys(views)).toHaveLength(BOUNDS.valuesPerLabel + 1);
    expect(await counted("signups_accepted_total")).toEqual({ "lancamento off": 1 });
  });

  it("a post the bot trap caught is no sign-up post of its campaign; every other outcome is one", async () => {
    const registry = new Registry();
    const insight = new Insight(registry);
    const post = () =>
      new Request("https://prevly.com.br/?index", {
        method: "POST",
        headers: { referer: "https://prevly.com.br/?utm_source=news&utm_campaign=lancamento" },
      });
    for (const outcome of ["bot", "bot", "bot", "invalid-email", "captcha-missing", "queued"])
      insight.signupPosted(post(), outcome);
    const { values } = await registry.getSingleMetric("signup_posts_total")!.get();
    const counted = values.filter(({ value }) => value > 0);
    expect(counted.map(({ labels, value }) => [labels.utm_campaign, labels.javascript, value])).toEqual([
      ["lancamento", "off", 3],
    ]);
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
