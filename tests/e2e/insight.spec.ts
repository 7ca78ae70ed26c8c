import type { Page } from "@playwright/test";
import { FORM_REACHED_PATH } from "~/insight/paths";
import { scrapeMetrics, sumOf } from "../harness/metrics";
import { afterIdle, expect, openNearForm, test, uniqueEmail } from "./fixtures";
import { APP_ORIGIN, E2E_METRICS_TOKEN } from "./support/ports";

/**
 * The campaign counts as a visitor's browser makes them (docs/insight.md): one beacon once the visitor nears the
 * form, none from a visit that leaves before it, a sign-up after a refusal still counted for the campaign of the page
 * it was sent from, its two presses one visitor's; nothing kept in the browser. What the server counts of views:
 * tests/server/insight.test.ts; of posts with and without JavaScript, and when a campaign becomes a label:
 * unit/insight-labels.
 */

test.use({ viewport: { width: 390, height: 844 } });

const CAMPAIGN_PAGE = "/?utm_source=news&utm_campaign=lancamento";
const CAMPAIGN = { utm_source: "news", utm_medium: "(none)", utm_campaign: "lancamento", javascript: "on" };

const countsNow = async () => {
  const samples = await scrapeMetrics(APP_ORIGIN, E2E_METRICS_TOKEN);
  return {
    reached: sumOf(samples, "form_reached_total"),
    pressed: sumOf(samples, "form_pressed_total"),
    posts: sumOf(samples, "signup_posts_total"),
    acceptedForCampaign: sumOf(samples, "signups_accepted_total", CAMPAIGN),
  };
};

/** What the browser keeps for the site: cookies and storages. */
async function keptByBrowser(page: Page) {
  const cookies = (await page.context().cookies()).map((cookie) => cookie.name);
  const storage = await page.evaluate(async () => ({
    localStorage: localStorage.length,
    sessionStorage: sessionStorage.length,
    indexedDB: (await indexedDB.databases()).length,
    caches: (await caches.keys()).length,
  }));
  return { cookies, ...storage };
}

test("from a campaign link: one beacon as the visitor nears the form, a refusal then a sign-up counted for the campaign; a visit that leaves before the form sends none; no cookie, nothing stored", async ({
  page,
  context,
}) => {
  const before = await countsNow();
  const beacon = page.waitForRequest((request) => request.url().endsWith(FORM_REACHED_PATH));
  const form = await openNearForm(page, CAMPAIGN_PAGE);
  expect((await beacon).postData()).toBe("utm_source=news&utm_campaign=lancamento");
  // A refusal first: the page is at /?index after it, and the sign-up still counts for the campaign.
  await form.send("maria@");
  await expect(page.getByText("E-mail inválido").first()).toBeVisible();
  await form.send(uniqueEmail("campanha"));
  await expect(page.getByText("Cadastro realizado!")).toBeVisible();

  const browsing = await context.newPage();
  await browsing.goto(CAMPAIGN_PAGE);
  await afterIdle(browsing);

  await expect.poll(async () => (await countsNow()).reached - before.reached).toBe(1);
  const after = await countsNow();
  expect({
    reached: after.reached - before.reached,
    pressed: after.pressed - before.pressed,
    posts: after.posts - before.posts,
    acceptedForCampaign: after.acceptedForCampaign - before.acceptedForCampaign,
  }).toEqual({ reached: 1, pressed: 1, posts: 2, acceptedForCampaign: 1 });

  const nothing = { cookies: [], localStorage: 0, sessionStorage: 0, indexedDB: 0, caches: 0 };
  expect(await keptByBrowser(page)).toEqual(nothing);
  expect(await keptByBrowser(browsing)).toEqual(nothing);
});
