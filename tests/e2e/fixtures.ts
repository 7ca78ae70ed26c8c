import { test as base, expect, type Page } from "@playwright/test";
import { STAND_IN_ORIGIN } from "../support/ports";
import { StandInClient } from "../support/stand-in";

export { expect };

export const test = base.extend<{ standIn: StandInClient }>({
  standIn: async ({}, use) => {
    const standIn = new StandInClient(STAND_IN_ORIGIN);
    await standIn.reset();
    await use(standIn);
  },
});

/** A fresh address per test, so no test is mistaken for a replay of another. */
export function uniqueEmail(tag: string): string {
  return `${tag}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@exemplo.com.br`;
}

export const signupForm = (page: Page) => {
  const email = page.getByLabel("Seu e-mail");
  const submit = page.getByRole("button", { name: "Cadastrar" });
  const captcha = page.getByTestId("fake-hcaptcha");
  return {
    email,
    submit,
    captcha,
    /** Types the address, solves the (fake) captcha and presses 'Cadastrar'. */
    send: async (address: string) => {
      await email.fill(address);
      await captcha.click();
      await submit.click();
    },
  };
};

/** Resolves once React has hydrated the page (its fiber is attached to the DOM). */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const button = document.querySelector("form button[type=submit]");
    return Boolean(button && Object.keys(button).some((key) => key.startsWith("__reactFiber")));
  });
}
