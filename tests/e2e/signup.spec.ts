import { BotTrap, FORM_MAX_AGE_MS, MIN_SUBMIT_MS } from "~/signup/bot-trap.server";
import { SignedTokens } from "~/signup/signed-tokens.server";
import { E2E_SIGNUP_SECRET } from "./support/ports";
import { expect, expectSignedUpOnce, holdRequests, openNearForm, shownToast, test, uniqueEmail } from "./fixtures";

test("a visitor signs up, not before the captcha is solved nor once it expired (the widget reset), not even with Enter: the e-mail arrives once and the form starts over", async ({
  page,
  standIn,
}) => {
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().includes("?index")) posts.push(request.url());
  });
  const form = await openNearForm(page);
  const email = uniqueEmail("ana");
  await expect(form.captcha).toBeVisible();
  await form.email.fill(email);
  await expect(form.submit).toBeDisabled();
  await form.email.press("Enter");
  await form.captcha.click();
  await expect(form.submit).toBeEnabled();
  await page.evaluate(() => (window as unknown as { hcaptcha: { expireAll(): void } }).hcaptcha.expireAll());
  await expect(form.submit).toBeDisabled();
  await expect(form.captcha).toHaveAttribute("aria-pressed", "false");
  await expect(form.captcha).toHaveAttribute("data-resets", "1");
  await form.email.press("Enter");
  // A post that either Enter sent would have gone out before the one the solved captcha sends next.
  await form.captcha.click();
  await form.press();

  await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: expect.stringMatching(/^fake-token-/) });
  expect(posts).toHaveLength(1);
  await expect(form.email).toHaveValue("");
  await expect(form.submit).toBeDisabled();
  await expect(form.captcha).toHaveAttribute("aria-pressed", "false");
  await expect(form.captcha).toHaveAttribute("data-resets", "2");
  // Only one notice: the in-place one is for visitors without JavaScript.
  await expect(page.getByText("Você será notificado assim que o Prevly for lançado.")).toHaveCount(1);
});

// The shipped nginx answers past its burst itself, and when an instance is gone: HTML without Remix's headers, which
// Remix throws, and the root's error page would replace the form and the e-mail ('Algo deu errado — Erro 500').
test("while a sign-up is in flight the button shows progress and cannot be pressed again; the balancer's own error page then answering is a notice beside the form, the e-mail kept", async ({
  page,
}) => {
  const post = await holdRequests(
    page,
    "/?index*",
    (request) => request.method() === "POST",
    (route) =>
      route.fulfill({
        status: 502,
        contentType: "text/html",
        body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
      }),
  );
  const form = await openNearForm(page);
  const email = uniqueEmail("balanceador");
  await form.send(email);
  await expect(page.getByRole("button", { name: "Enviando…" })).toBeDisabled();
  post.release();
  await expect(shownToast(page)).toContainText("Falha ao enviar");
  await expect(shownToast(page)).toContainText("Não foi possível enviar seu cadastro agora. Tente novamente.");
  await expect(form.email).toHaveValue(email);
});

// What a page carries when rendered long ago, or under a secret since retired: the server answers the first with fresh
// fields, the second with word to fetch the page's own (a time no secret of ours signed earns a script nothing).
const STALE_PAGES = [
  {
    what: "a page left open too long",
    validFrom: () =>
      new BotTrap(new SignedTokens(E2E_SIGNUP_SECRET)).fields(Date.now() - FORM_MAX_AGE_MS - MIN_SUBMIT_MS - 1_000),
  },
  {
    what: "a page rendered under a secret since retired",
    validFrom: () =>
      new BotTrap(new SignedTokens("a-secret-no-instance-holds-any-more-000000")).fields(
        Date.now() - MIN_SUBMIT_MS - 1_000,
      ),
  },
];
for (const { what, validFrom } of STALE_PAGES) {
  test(`${what} is told so, gets fresh fields by itself, and the second press signs up`, async ({ page, standIn }) => {
    await page.route(
      (url) => url.pathname === "/" && url.search === "",
      async (route) => {
        const response = await route.fetch();
        const html = await response.text();
        const current = /"validFrom":"([^"]+)"/.exec(html)![1]!;
        // Its data script changed, its hash in the policy no longer matches: the policy stays out of this page.
        const headers = { ...response.headers() };
        for (const name of ["content-encoding", "content-length", "content-security-policy"]) delete headers[name];
        await route.fulfill({ status: 200, headers, body: html.replaceAll(current, validFrom().validFrom) });
      },
    );
    const form = await openNearForm(page);
    const email = uniqueEmail("pagina-velha");
    await form.email.fill(email);
    await form.captcha.click();
    const staleFields = await page.locator('input[name="from__confirm"]').inputValue();
    await form.press();
    await expect(page.getByText("Página desatualizada")).toBeVisible();
    await expect(form.email).toHaveValue(email);
    // The fresh fields in place before the second press (a person reads the notice first).
    await expect(page.locator('input[name="from__confirm"]')).not.toHaveValue(staleFields);

    await form.press();
    await expectSignedUpOnce(page, standIn, { email });
  });
}
