import type { Browser, BrowserContext, Page } from "@playwright/test";
import { FORM_REACHED_PATH } from "~/insight/paths";
import { scrapeMetrics, sumOf, type Sample } from "../harness/metrics";
import { solveQuestion } from "../harness/question-solver";
import { afterIdle, expect, signupForm, test, uniqueEmail, waitForHydration } from "./fixtures";
import { fakeHcaptcha } from "./support/fake-hcaptcha";
import { APP_ORIGIN, E2E_METRICS_TOKEN } from "./support/ports";

/**
 * The campaign counts as a visitor's browser makes them (docs/insight.md): a view per page load, one beacon once
 * the visitor nears the form, a sign-up counted for the campaign of the page it was sent from; nothing kept in the
 * browser, nothing fetched before the form comes near.
 */

const CAMPAIGN_PAGE = "/?utm_source=news&utm_campaign=lancamento";
const CAMPAIGN = { utm_source: "news", utm_medium: "(none)", utm_campaign: "lancamento" };
const QUESTION = /^Quanto é \S+ (mais|menos) \S+\?$/;

const counts = (samples: Sample[]) => ({
  views: sumOf(samples, "page_views_total", CAMPAIGN),
  reached: sumOf(samples, "form_reached_total", CAMPAIGN),
  posts: sumOf(samples, "signup_posts_total", CAMPAIGN),
  accepted: sumOf(samples, "signups_accepted_total", CAMPAIGN),
  acceptedWithout: sumOf(samples, "signups_accepted_total", { ...CAMPAIGN, javascript: "off" }),
});
const countsNow = async () => counts(await scrapeMetrics(APP_ORIGIN, E2E_METRICS_TOKEN));

/** A visitor without JavaScript at `path`, from their own address (198.51.100.`host`), who answers the question. */
async function withoutJavaScript(browser: Browser, path: string, host: number) {
  const context = await browser.newContext({
    javaScriptEnabled: false,
    locale: "pt-BR",
    extraHTTPHeaders: { "x-forwarded-for": `198.51.100.${host}` },
  });
  const page = await context.newPage();
  await page.goto(path);
  const answer = async () => {
    const question = (await page.getByText(QUESTION).textContent())!;
    await page.getByLabel(QUESTION).fill(String(solveQuestion(question)));
  };
  return { context, page, form: signupForm(page), answer };
}

/** What the browser keeps for the site: cookies, and (where scripts run) its storages. */
async function keptByBrowser(context: BrowserContext, page: Page | null) {
  const cookies = (await context.cookies()).map((cookie) => cookie.name);
  if (!page) return { cookies };
  const storage = await page.evaluate(async () => ({
    localStorage: localStorage.length,
    sessionStorage: sessionStorage.length,
    indexedDB: (await indexedDB.databases()).length,
    caches: (await caches.keys()).length,
  }));
  return { cookies, ...storage };
}

test("three visits from a campaign link, a sign-up without JavaScript and one with, each after a refusal: the campaign a label from the first sign-up on, 2 views, 1 reached the form, 3 posts and 2 sign-ups for it; no cookie, nothing stored", async ({
  page,
  browser,
  context,
  standIn,
}) => {
  const before = await countsNow();
  await page.setViewportSize({ width: 390, height: 844 });
  await fakeHcaptcha(page);
  // 1. Without JavaScript, the question, a plain post. Its view and refusal count as (other): a campaign is a label
  // once a sign-up carried it, which this one's success does.
  const {
    context: withoutScripts,
    page: plainPage,
    form: plainForm,
    answer,
  } = await withoutJavaScript(browser, CAMPAIGN_PAGE, 35);
  await plainForm.email.fill("maria@");
  await answer();
  await plainForm.press();
  await expect(plainPage.getByRole("alert")).toContainText("E-mail inválido");
  await plainForm.email.fill(uniqueEmail("campanha-sem-js"));
  await answer();
  await plainForm.press();
  await expect(plainPage.getByRole("status")).toContainText("Cadastro realizado!");

  // 2. With JavaScript, to the form: the beacon goes as the boot starts.
  await page.goto(CAMPAIGN_PAGE);
  const beacon = page.waitForRequest((request) => request.url().endsWith(FORM_REACHED_PATH));
  const form = signupForm(page);
  await form.email.scrollIntoViewIfNeeded();
  await waitForHydration(page);
  expect((await beacon).postData()).toBe("utm_source=news&utm_campaign=lancamento");
  // A refusal first: the page is at /?index after it, and the sign-up still counts for the campaign.
  await form.send("maria@");
  await expect(page.getByText("E-mail inválido").first()).toBeVisible();
  await form.send(uniqueEmail("campanha-js"));
  await expect(page.getByText("Cadastro realizado!")).toBeVisible();

  // 3. With JavaScript, leaving before the form.
  const browsing = await context.newPage();
  await browsing.setViewportSize({ width: 390, height: 844 });
  await browsing.goto(CAMPAIGN_PAGE);
  await afterIdle(browsing);

  await expect.poll(async () => (await countsNow()).reached - before.reached).toBe(1);
  const after = await countsNow();
  expect({
    views: after.views - before.views,
    reached: after.reached - before.reached,
    posts: after.posts - before.posts,
    accepted: after.accepted - before.accepted,
    acceptedWithout: after.acceptedWithout - before.acceptedWithout,
  }).toEqual({ views: 2, reached: 1, posts: 3, accepted: 2, acceptedWithout: 1 });
  expect((await standIn.received()).webhook).toHaveLength(2);

  const nothing = { cookies: [], localStorage: 0, sessionStorage: 0, indexedDB: 0, caches: 0 };
  expect(await keptByBrowser(context, page)).toEqual(nothing);
  expect(await keptByBrowser(context, browsing)).toEqual(nothing);
  expect(await keptByBrowser(withoutScripts, null)).toEqual({ cookies: [] });
  await withoutScripts.close();
});
