import { fakeHcaptcha } from "./support/fake-hcaptcha";
import { expect, signupForm, test, uniqueEmail } from "./fixtures";

test("loading the page, the captcha and a toast breaks no rule of the content security policy", async ({ page }) => {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /Content[- ]Security[- ]Policy/i.test(message.text()))
      problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  await fakeHcaptcha(page);
  await page.goto("/");
  const form = signupForm(page);
  await form.email.scrollIntoViewIfNeeded();
  await form.email.fill(uniqueEmail("csp"));
  await form.captcha.click();
  await form.press();
  await expect(page.getByText("Cadastro realizado!")).toBeVisible();
  expect(problems).toEqual([]);
});
