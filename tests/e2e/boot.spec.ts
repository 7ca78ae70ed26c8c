import type { Page } from "@playwright/test";
import type { StandInClient } from "../harness/stand-in";
import { fakeHcaptcha } from "./support/fake-hcaptcha";
import {
  afterIdle,
  afterMinimumTime,
  APP_SCRIPT,
  expect,
  expectSignedUpOnce,
  holdScripts,
  signupForm,
  test,
  uniqueEmail,
  waitForHydration,
} from "./fixtures";

/** Opens the page and lets it go idle; the list then grows with every script the page asks for, its own or anyone's. */
async function openIdle(page: Page): Promise<string[]> {
  await page.goto("/");
  await afterIdle(page);
  const urls: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script" || APP_SCRIPT.test(request.url())) urls.push(request.url());
  });
  return urls;
}

/** The page opened with its scripts held back, and a fresh address to type. */
async function openWithScriptsHeld(page: Page, tag: string) {
  const scripts = await holdScripts(page);
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

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await fakeHcaptcha(page);
});

test("following the call to action boots the page, brings the e-mail field into view and puts the cursor in it", async ({
  page,
}) => {
  const scripts = await openIdle(page);
  await page.getByRole("link", { name: "Seja o primeiro a saber!" }).click();
  const form = signupForm(page);
  await expect(form.email).toBeInViewport();
  await expect(form.email).toBeFocused();
  expect(new URL(page.url()).hash).toBe("#cadastro");
  await waitForHydration(page);
  await expect(form.email).toBeFocused();
  expect(scripts.length).toBeGreaterThan(0);
});

test("an e-mail half typed before the scripts arrive is still there after hydration, and signs up", async ({
  page,
  standIn,
}) => {
  const { scripts, form, email } = await openWithScriptsHeld(page, "antes");
  const [start, end] = [email.slice(0, 8), email.slice(8)];
  await form.email.focus();
  await page.keyboard.type(start);
  await scripts.requested;
  scripts.release();

  await waitForHydration(page);
  await expect(form.email).toHaveValue(start);
  await form.email.press("End");
  await page.keyboard.type(end);
  await finishWithCaptcha(page, standIn, email);
});

test("Enter before the scripts arrive is a plain post answered on screen; then the captcha signs up, exactly once", async ({
  page,
  standIn,
}, testInfo) => {
  const { scripts, form, email } = await openWithScriptsHeld(page, "enter-cedo");
  await form.email.fill(email);
  await afterMinimumTime(page);
  await form.email.press("Enter");

  await page.waitForURL(/\/\?index$/);
  const notice = page.getByRole("alert");
  await expect(notice).toContainText("Valide o captcha");
  await expect(notice).toBeInViewport({ ratio: 1 });
  await expect(form.email).toBeInViewport({ ratio: 1 });
  await expect(form.email).toHaveValue(email);
  await expect(page).toHaveTitle("Valide o captcha — Prevly — sua previdência privada em um só app");
  await page.screenshot({ path: testInfo.outputPath("answer-before-scripts.png") });
  expect((await standIn.received()).webhook).toHaveLength(0);

  scripts.release();
  await waitForHydration(page);
  // The answer stays where the visitor read it until the next one.
  await expect(notice).toContainText("Valide o captcha");
  await finishWithCaptcha(page, standIn, email);
});

test("the form keeps its place when the page hydrates under the visitor's eyes: 'Cadastrar' does not move", async ({
  page,
}) => {
  const { scripts, form } = await openWithScriptsHeld(page, "no-lugar");
  // Where 'Cadastrar' sits below the e-mail field, read in one frame (the page scrolls smoothly).
  const gap = () =>
    form.submit.evaluate((submit) => {
      const email = document.getElementById("email")!;
      return submit.getBoundingClientRect().top - email.getBoundingClientRect().top;
    });
  await form.email.focus();
  await scripts.requested;
  const before = await gap();

  scripts.release();
  await waitForHydration(page);
  await expect(form.captcha).toBeVisible();
  expect(await gap()).toBe(before);
});
