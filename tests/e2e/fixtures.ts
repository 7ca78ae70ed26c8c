import { test as base, expect, type Locator, type Page, type Request, type Route } from "@playwright/test";
import { solveQuestion } from "../harness/question-solver";
import { readEarlier } from "../harness/signup-client";
import { StandInClient } from "../harness/stand-in";
import { fakeHcaptcha } from "../harness/fake-hcaptcha-api";
import { E2E_SIGNUP_SECRET, STAND_IN_ORIGIN } from "./support/ports";

export { expect };

let visitors = 0;

export const test = base.extend<{ standIn: StandInClient; visitorAddress: string; fakeHcaptcha: void }>({
  standIn: async ({}, use) => {
    const standIn = new StandInClient(STAND_IN_ORIGIN);
    await standIn.reset();
    await use(standIn);
  },
  /** Each test is a visitor of its own address, so one test's siteverify calls never count against another's rate. */
  visitorAddress: [
    async ({ context }, use, testInfo) => {
      visitors += 1;
      const address = `198.51.${testInfo.workerIndex % 256}.${visitors % 256}`;
      await context.setExtraHTTPHeaders({ "x-forwarded-for": address });
      await use(address);
    },
    { auto: true },
  ],
  /** hCaptcha's script is the fake for every page (a test's own page.route comes first): the network here is closed. */
  fakeHcaptcha: [
    async ({ context }, use) => {
      await fakeHcaptcha(context);
      await use();
    },
    { auto: true },
  ],
});

/** A fresh address per test, so no test is mistaken for a replay of another. */
export function uniqueEmail(tag: string): string {
  return `${tag}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@exemplo.com.br`;
}

/**
 * Makes a form's bot-trap time that has not come yet one a person's reading has reached (readEarlier, with the
 * server's secret), so pressing now is a person's press, not a bot's, without the test waiting that long. Fields
 * already good (those a refusal hands back) are left as the server sent them.
 */
export async function afterMinimumTime(page: Page): Promise<void> {
  const field = page.locator('input[name="from__confirm"]');
  const validFrom = await field.inputValue();
  if (Number(validFrom.split(".")[0]) <= Date.now()) return;
  const read = readEarlier(validFrom, E2E_SIGNUP_SECRET);
  await field.evaluate((input: HTMLInputElement, value) => (input.value = value), read);
}

export const QUESTION = /^Quanto é \S+ (mais|menos) \S+\?$/;

/** The toast on screen (sonner keeps a dismissed one in the page a moment, marked removed). */
export const shownToast = (page: Page) => page.locator('[data-sonner-toast][data-removed="false"]');

export const signupForm = (page: Page) => {
  const email = page.getByLabel("Seu e-mail");
  const submit = page.getByRole("button", { name: "Cadastrar" });
  const captcha = page.getByTestId("fake-hcaptcha");
  const answer = page.getByLabel(QUESTION);
  /** Presses 'Cadastrar' once a person could have. */
  const press = async () => {
    await afterMinimumTime(page);
    await submit.click();
  };
  return {
    email,
    submit,
    captcha,
    answer,
    press,
    /** Answers the question on screen, `offset` off the right answer. */
    answerQuestion: async (offset = 0) =>
      answer.fill(String(solveQuestion((await page.getByText(QUESTION).textContent())!) + offset)),
    /** Types the address, solves the (fake) captcha and presses 'Cadastrar'. */
    send: async (address: string) => {
      await email.fill(address);
      await captcha.click();
      await press();
    },
  };
};

/** Opens `path` and brings the form into view, as a visitor scrolling to it does. */
export async function openNearForm(page: Page, path = "/"): Promise<ReturnType<typeof signupForm>> {
  await page.goto(path);
  const form = signupForm(page);
  await form.email.scrollIntoViewIfNeeded();
  return form;
}

/** 'Cadastro realizado!' on screen, and the webhook got one body, holding `fields`. */
export async function expectSignedUpOnce(
  page: Page,
  standIn: StandInClient,
  fields: Record<string, unknown>,
): Promise<void> {
  await expect(page.getByText("Cadastro realizado!")).toBeVisible();
  const { webhook } = await standIn.received();
  expect(webhook.map((hit) => hit.body)).toEqual([expect.objectContaining(fields)]);
}

/** The GOV.UK error message: the field marked, its message read with it, the cursor in it. */
export async function expectRefused(field: Locator, message: string): Promise<void> {
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveAccessibleDescription(new RegExp(`^Erro: ${message}`));
  await expect(field).toBeFocused();
}

/**
 * Resolves once the page is hydrated, told by what a visitor sees: the server
 * sends 'Cadastrar' enabled (it must work without JavaScript) and the hydrated
 * form disables it until the captcha is solved.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await expect(page.getByRole("button", { name: "Cadastrar" })).toBeDisabled();
}

/** The page's own scripts (/build/*.js), as the browser asks for them. */
export const APP_SCRIPT = /\/build\/.+\.js$/;

/**
 * Resolves after the page has been idle and painted twice more: long enough for
 * anything that would start "once the page is idle" to have started.
 */
export async function afterIdle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  await page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestIdleCallback(() => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
      ),
  );
}

/**
 * Holds the page's requests to `url` that `held` picks until `release()`, then lets `answer` answer them (by default
 * the network): what the visitor sees and does while they are on their way. `requested` resolves once one was asked for.
 */
export async function holdRequests(
  page: Page,
  url: RegExp | string,
  held: (request: Request) => boolean = () => true,
  answer: (route: Route) => Promise<void> = (route) => route.fallback(),
) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked = () => {};
  const requested = new Promise<void>((resolve) => (asked = resolve));
  await page.route(url, async (route) => {
    if (!held(route.request())) return route.fallback();
    asked();
    // A request of a page the visitor has left by then can no longer be answered.
    await released.then(() => answer(route)).catch(() => {});
  });
  return { requested, release };
}
