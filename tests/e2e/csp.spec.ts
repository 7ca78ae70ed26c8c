import { expect, openNearForm, test, uniqueEmail } from "./fixtures";

/**
 * What only a browser can tell of the content security policy: that it blocks nothing the page does. Its directives
 * are the server's (tests/server/headers.test.ts).
 */
test("loading the page, its boot, the captcha and a toast breaks no rule of the content security policy", async ({
  page,
}) => {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const form = await openNearForm(page);
  await form.email.fill(uniqueEmail("csp"));
  await form.captcha.click();
  await form.press();
  await expect(page.getByText("Cadastro realizado!")).toBeVisible();
  expect(problems).toEqual([]);
});
