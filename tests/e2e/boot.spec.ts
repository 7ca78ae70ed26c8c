import type { Page, Route } from "@playwright/test";
import type { StandInClient } from "../harness/stand-in";
import {
  afterMinimumTime,
  APP_SCRIPT,
  expect,
  expectSignedUpOnce,
  holdRequests,
  signupForm,
  test,
  uniqueEmail,
  waitForHydration,
} from "./fixtures";

/** The page opened with its scripts held back until `scripts.release()`. */
async function openWithScriptsHeld(page: Page, tag: string) {
  const scripts = await holdRequests(page, APP_SCRIPT);
  await page.goto("/");
  return { scripts, form: signupForm(page), email: uniqueEmail(tag) };
}

/** Solves the (fake) captcha, presses 'Cadastrar', and expects this one sign-up, once, at the webhook. */
async function finishWithCaptcha(page: Page, standIn: StandInClient, email: string) {
  const form = signupForm(page);
  await form.captcha.click();
  await form.press();
  await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: expect.stringMatching(/^fake-token-/) });
}

test.use({ viewport: { width: 390, height: 844 } });

test("the script-only parts are there from the first paint; an e-mail half typed before the scripts arrive is still there after hydration, which moves nothing ('Cadastrar' stays where it was), and signs up", async ({
  page,
  standIn,
}) => {
  // Whether the first `js-only` part the parser met was hidden (it is in the form, above the boot's script).
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (!document.querySelector(".js-only")) return;
      document.documentElement.dataset.jsOnlyFirst = document.documentElement.classList.contains("js")
        ? "shown"
        : "hidden";
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
  });
  const { scripts, form, email } = await openWithScriptsHeld(page, "antes");
  await expect(page.locator("html")).toHaveAttribute("data-js-only-first", "shown");
  // Where 'Cadastrar' sits below the e-mail field, read in one frame (the page scrolls smoothly).
  const gap = () =>
    form.submit.evaluate((submit) => {
      const field = document.getElementById("email")!;
      return submit.getBoundingClientRect().top - field.getBoundingClientRect().top;
    });
  const [start, end] = [email.slice(0, 8), email.slice(8)];
  await form.email.focus();
  await page.keyboard.type(start);
  await scripts.requested;
  const before = await gap();
  scripts.release();

  await waitForHydration(page);
  await expect(form.captcha).toBeVisible();
  expect(await gap()).toBe(before);
  await expect(form.email).toHaveValue(start);
  await form.email.press("End");
  await page.keyboard.type(end);
  await finishWithCaptcha(page, standIn, email);
});

for (const scriptsFail of [false, true]) {
  test(`Enter before the scripts arrive is a plain post answered on screen; then ${scriptsFail ? "the scripts fail: the cursor goes from the captcha's place to the question, which signs up" : "the captcha signs up, exactly once"}`, async ({
    page,
    standIn,
  }) => {
    const fail = scriptsFail ? (route: Route) => route.fulfill({ status: 404 }) : undefined;
    // The first page's requests are gone with it by then: only the answer page's are answered.
    const scripts = await holdRequests(page, APP_SCRIPT, undefined, fail);
    await page.goto("/");
    const form = signupForm(page);
    const email = uniqueEmail("enter-cedo");
    await form.email.fill(email);
    await afterMinimumTime(page);
    await form.email.press("Enter");

    await page.waitForURL(/\/\?index$/);
    const notice = page.getByRole("alert");
    await expect(notice).toContainText("Valide o captcha");
    await expect(notice).toBeInViewport({ ratio: 1 });
    await expect(form.email).toBeInViewport({ ratio: 1 });
    await expect(form.email).toHaveValue(email);

    scripts.release();
    if (scriptsFail) {
      await expect(form.answer).toBeFocused();
      await form.answerQuestion();
      await form.press();
      return expectSignedUpOnce(page, standIn, { email, hcaptchaToken: "" });
    }
    await waitForHydration(page);
    // The answer stays where the visitor read it until the next one.
    await expect(notice).toContainText("Valide o captcha");
    await finishWithCaptcha(page, standIn, email);
  });
}
