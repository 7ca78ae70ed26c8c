import type { Page } from "@playwright/test";
import { fakeHcaptcha } from "./support/fake-hcaptcha";
import { expect, openNearForm, signupForm, test, uniqueEmail, waitForHydration } from "./fixtures";

/** Every violation of the policy the page meets, as a console error starting "CSP violation". */
async function logViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
}

test("loading the page, the captcha and a toast breaks no rule of the content security policy", async ({ page }) => {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /Content[- ]Security[- ]Policy/i.test(message.text()))
      problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await logViolations(page);
  const form = await openNearForm(page);
  await form.email.fill(uniqueEmail("csp"));
  await form.captcha.click();
  await form.press();
  await expect(page.getByText("Cadastro realizado!")).toBeVisible();
  expect(problems).toEqual([]);
});

test("the policy allows no inline script but the page's own, by hash, and the boot runs under it", async ({ page }) => {
  const violations: string[] = [];
  await logViolations(page);
  page.on("console", (message) => {
    if (message.text().startsWith("CSP violation")) violations.push(message.text());
  });
  await fakeHcaptcha(page);
  const response = await page.goto("/");
  const scriptSrc = (await response!.headerValue("content-security-policy"))!
    .split(";")
    .map((directive) => directive.trim())
    .find((directive) => directive.startsWith("script-src "))!;
  expect(scriptSrc).not.toContain("'unsafe-inline'");
  expect(scriptSrc).not.toContain("'unsafe-eval'");
  expect(scriptSrc).toMatch(
    /^script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+ https:\/\/hcaptcha\.com https:\/\/\*\.hcaptcha\.com$/,
  );
  // The boot is an inline script: it ran (the page hydrated) because its hash is listed.
  await signupForm(page).email.focus();
  await waitForHydration(page);
  expect(violations).toEqual([]);
});
