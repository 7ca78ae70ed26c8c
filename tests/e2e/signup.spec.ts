import { solveQuestion } from "../harness/question-solver";
import { BotTrap, FORM_MAX_AGE_MS, MIN_SUBMIT_MS } from "~/signup/bot-trap.server";
import { SignedTokens } from "~/signup/signed-tokens.server";
import { blockHcaptcha, fakeHcaptcha } from "./support/fake-hcaptcha";
import { E2E_SIGNUP_SECRET } from "./support/ports";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import type { StandInClient } from "../harness/stand-in";
import {
  afterMinimumTime,
  expect,
  expectSignedUpOnce,
  keepScreenshot,
  openNearForm,
  signupForm,
  test,
  uniqueEmail,
} from "./fixtures";

const SUCCESS = "Você será notificado assim que o Prevly for lançado.";
const FALLBACK = "Não foi possível enviar seu cadastro agora. Tente novamente.";
const QUESTION = /^Quanto é \S+ (mais|menos) \S+\?$/;
const QUESTION_INSTEAD = "Não consegue resolver o captcha? Responda a uma pergunta";

/** The toast's title and text on screen, and what the visitor typed still in the field. */
async function expectToastKeepingEmail(page: Page, title: string, text: string, email: string) {
  await expect(page.getByText(title)).toBeVisible();
  await expect(page.getByText(text)).toBeVisible();
  await expect(signupForm(page).email).toHaveValue(email);
}

/** A press refused as 'Página desatualizada', the e-mail kept and nothing relayed; the next press signs up. */
async function expectStaleThenSignedUp(page: Page, standIn: StandInClient, email: string) {
  const form = signupForm(page);
  await form.press();
  await expect(page.getByText("Página desatualizada")).toBeVisible();
  await expect(form.email).toHaveValue(email);
  expect((await standIn.received()).webhook).toHaveLength(0);

  await form.press();
  await expectSignedUpOnce(page, standIn, { email });
}

test.describe("with JavaScript and hCaptcha", () => {
  test.beforeEach(async ({ page }) => {
    await openNearForm(page);
  });

  test("a visitor signs up: the webhook gets the exact body once and the form starts over", async ({
    page,
    standIn,
  }) => {
    const form = signupForm(page);
    const email = uniqueEmail("ana");
    await expect(form.submit).toBeDisabled();
    await form.email.fill(email);
    await form.captcha.click();
    await expect(form.submit).toBeEnabled();
    const before = Date.now();
    await form.press();

    await expect(page.getByText("Cadastro realizado!")).toBeVisible();
    await expect(page.getByText(SUCCESS)).toBeVisible();
    const { webhook } = await standIn.received();
    expect(webhook).toHaveLength(1);
    const received = webhook[0]!;
    expect(received.headers["content-type"]).toBe("application/json");
    const body = received.body as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(["email", "hcaptchaToken", "source", "ts", "userAgent"]);
    expect(body.email).toBe(email);
    expect(body.hcaptchaToken).toMatch(/^fake-token-/);
    expect(body.source).toBe("prevly-landing");
    expect(body.userAgent).toBe(await page.evaluate(() => navigator.userAgent));
    expect(Date.parse(body.ts!)).toBeGreaterThanOrEqual(before - 1000);
    expect(body.ts).toBe(new Date(body.ts!).toISOString());

    await expect(form.email).toHaveValue("");
    await expect(form.submit).toBeDisabled();
    await expect(form.captcha).toHaveAttribute("aria-pressed", "false");
    await expect(form.captcha).toHaveAttribute("data-resets", "1");
    // Only one notice: the in-place one is for visitors without JavaScript.
    await expect(page.getByText(SUCCESS)).toHaveCount(1);
  });

  for (const invalid of ["", "sem-arroba.com.br", "ana@", "ana@exemplo", "ana silva@exemplo.com", "@exemplo.com"]) {
    test(`"${invalid}" is refused with 'E-mail inválido' and kept in the field`, async ({ page, standIn }) => {
      const form = signupForm(page);
      await form.send(invalid);
      await expectToastKeepingEmail(page, "E-mail inválido", "Por favor, informe um e-mail válido.", invalid);
      // The token was not spent: the visitor only fixes the address.
      await expect(form.submit).toBeEnabled();
      expect((await standIn.received()).webhook).toHaveLength(0);
    });
  }

  test("at 390 px an error then a success: one toast, the latest, whole on screen and clear of the field and the button", async ({
    page,
  }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const form = await openNearForm(page);
    await form.send("ana@exemplo");
    await expect(page.getByText("E-mail inválido")).toBeVisible();
    await keepScreenshot(page, testInfo, "erro-390");

    await form.email.fill(uniqueEmail("na-tela"));
    await form.press();
    const toasts = page.locator("[data-sonner-toast]");
    await expect(toasts.filter({ hasText: "Cadastro realizado!" })).toBeVisible();
    // At once, well within the error's 4 s: it was taken away when the success came, not left to run out behind it.
    expect(await page.locator('[data-sonner-toast][data-removed="false"]').count()).toBe(1);
    await expect(toasts).toHaveCount(1);
    await expect(toasts).toBeInViewport({ ratio: 1 });
    await keepScreenshot(page, testInfo, "sucesso-390");
    const toast = (await toasts.boundingBox())!;
    for (const control of [form.email, form.submit]) {
      const box = (await control.boundingBox())!;
      const overlaps = box.y < toast.y + toast.height && toast.y < box.y + box.height;
      expect(overlaps, "the toast covers a control the visitor may use next").toBe(false);
    }
  });

  test("without a solved captcha the form cannot be sent, not even with Enter", async ({ page, standIn }) => {
    const form = signupForm(page);
    await expect(form.captcha).toBeVisible();
    await form.email.fill(uniqueEmail("sem-captcha"));
    await expect(form.submit).toBeDisabled();
    // Implicit submission, if any, fires "submit" while Enter is handled: the flag is set before press() returns.
    await page
      .locator("form")
      .evaluate((element) => element.addEventListener("submit", () => element.setAttribute("data-submitted", "")));
    await form.email.press("Enter");
    await expect(page.locator("form")).not.toHaveAttribute("data-submitted");
    expect((await standIn.received()).webhook).toHaveLength(0);
    await expect(page.getByText("Cadastro realizado!")).toHaveCount(0);
  });

  test("an expired captcha clears the token and resets the widget", async ({ page }) => {
    const form = signupForm(page);
    await form.email.fill(uniqueEmail("expira"));
    await form.captcha.click();
    await expect(form.submit).toBeEnabled();
    await page.evaluate(() => (window as unknown as { hcaptcha: { expireAll(): void } }).hcaptcha.expireAll());
    await expect(form.submit).toBeDisabled();
    await expect(form.captcha).toHaveAttribute("aria-pressed", "false");
    await expect(form.captcha).toHaveAttribute("data-resets", "1");
  });

  test("a webhook answering 500 shows its status and text; the e-mail stays", async ({ page, standIn }) => {
    await standIn.setWebhook({ status: 500, text: "workflow exploded" });
    const form = signupForm(page);
    const email = uniqueEmail("falha");
    await form.send(email);
    await expectToastKeepingEmail(
      page,
      "Falha ao enviar",
      "Webhook retornou 500 Internal Server Error: workflow exploded",
      email,
    );
    // The token went out with the relay: a new one is needed.
    await expect(form.submit).toBeDisabled();
    await expect(form.captcha).toHaveAttribute("data-resets", "1");
    expect((await standIn.received()).webhook).toHaveLength(1);
  });

  test("a webhook that drops the connection gives the fallback message", async ({ page, standIn }) => {
    await standIn.setWebhook({ status: 200, reset: true });
    const form = signupForm(page);
    const email = uniqueEmail("queda");
    await form.send(email);
    await expectToastKeepingEmail(page, "Falha ao enviar", FALLBACK, email);
  });

  // The shipped nginx answers past its burst itself, and when an instance is gone: HTML without Remix's headers, which
  // Remix throws, and the root's error page replaced the form and the e-mail ('Algo deu errado — Erro 500').
  for (const [status, title] of [
    [429, "Too Many Requests"],
    [502, "Bad Gateway"],
  ] as const) {
    test(`the balancer's own ${status} page is a notice beside the form, the e-mail kept`, async ({
      page,
      standIn,
    }) => {
      await page.route("/?index*", (route) =>
        route.request().method() === "POST"
          ? route.fulfill({
              status,
              contentType: "text/html",
              body: `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
            })
          : route.fallback(),
      );
      const form = signupForm(page);
      const email = uniqueEmail(`balanceador-${status}`);
      await form.send(email);
      await expect(page.getByText("Falha ao enviar")).toBeVisible();
      await expect(page.getByText(FALLBACK)).toBeVisible();
      await expect(form.email).toHaveValue(email);
      expect((await standIn.received()).webhook).toHaveLength(0);
    });
  }

  test("a captcha rejected by siteverify asks for a new one and relays nothing", async ({ page, standIn }) => {
    await standIn.setSiteverify({ success: false });
    const form = signupForm(page);
    const email = uniqueEmail("robo");
    await form.send(email);
    await expectToastKeepingEmail(
      page,
      "Valide o captcha",
      "Confirme que você não é um robô resolvendo o captcha.",
      email,
    );
    await expect(form.captcha).toHaveAttribute("data-resets", "1");
    const received = await standIn.received();
    expect(received.webhook).toHaveLength(0);
    expect(received.siteverify).toHaveLength(1);
    expect(received.siteverify[0]!.form).toMatchObject({
      secret: "0x0000000000000000000000000000000000000000",
      sitekey: "10000000-ffff-ffff-ffff-000000000001",
    });
  });

  test("a page left open too long is told so, gets fresh fields by itself, and the second press signs up", async ({
    page,
    standIn,
  }) => {
    const form = signupForm(page);
    const email = uniqueEmail("aba-antiga");
    await form.email.fill(email);
    await form.captcha.click();
    // What a page rendered over two hours ago carries.
    // (Set last: React puts a controlled value back whenever the form re-renders.)
    const rendered = Date.now() - FORM_MAX_AGE_MS - MIN_SUBMIT_MS - 1_000;
    const old = new BotTrap(new SignedTokens(E2E_SIGNUP_SECRET)).fields(rendered).validFrom;
    await page.locator('input[name="from__confirm"]').evaluate((input: HTMLInputElement, value) => {
      input.value = value;
    }, old);
    await expectStaleThenSignedUp(page, standIn, email);
  });

  test("a page rendered under a secret since retired is told so, gets the page's fresh fields by itself, and the second press signs up", async ({
    page,
    standIn,
  }) => {
    // The page as an instance rendered it before the rotation: its bot-trap time signed with the retired secret.
    const rendered = Date.now() - MIN_SUBMIT_MS - 1_000;
    const retired = new BotTrap(new SignedTokens("a-secret-no-instance-holds-any-more-000000")).fields(rendered);
    await page.route(
      (url) => url.pathname === "/" && url.search === "",
      async (route) => {
        const response = await route.fetch();
        const html = await response.text();
        const current = /"validFrom":"([^"]+)"/.exec(html)![1]!;
        // Its data script changed, its hash in the policy no longer matches: the policy stays out of this page.
        const headers = { ...response.headers() };
        for (const name of ["content-encoding", "content-length", "content-security-policy"]) delete headers[name];
        await route.fulfill({ status: 200, headers, body: html.replaceAll(current, retired.validFrom) });
      },
    );
    const form = await openNearForm(page);
    const email = uniqueEmail("segredo-antigo");
    await form.email.fill(email);
    await form.captcha.click();
    await expectStaleThenSignedUp(page, standIn, email);
  });

  test("while a sign-up is in flight the button shows progress and cannot be pressed again", async ({
    page,
    standIn,
  }) => {
    await standIn.setWebhook({ status: 200, delayMs: 800 });
    const form = signupForm(page);
    await form.send(uniqueEmail("lento"));
    const busy = page.getByRole("button", { name: "Enviando…" });
    await expect(busy).toBeDisabled();
    await expect(page.getByText("Cadastro realizado!")).toBeVisible();
    expect((await standIn.received()).webhook).toHaveLength(1);
  });
});

test.describe("the question instead of the captcha, with JavaScript", () => {
  test.beforeEach(async ({ page }) => {
    const form = await openNearForm(page);
    await expect(form.captcha).toBeVisible();
  });

  const solved = async (page: Page, offset = 0) =>
    String(solveQuestion((await page.getByText(QUESTION).textContent())!) + offset);

  test("a keyboard user finds it under the captcha, answers, and is signed up exactly once", async ({
    page,
    standIn,
  }) => {
    const form = signupForm(page);
    const email = uniqueEmail("teclado");
    await form.email.focus();
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await expect(form.captcha).toBeFocused();
    await page.keyboard.press("Tab");
    const swap = page.getByRole("button", { name: QUESTION_INSTEAD });
    await expect(swap).toBeFocused();
    await page.keyboard.press("Enter");

    const answer = page.getByLabel(QUESTION);
    await expect(answer).toBeFocused();
    await expect(form.captcha).toBeHidden();
    await expect(swap).toHaveCount(0);
    await expect(page.getByRole("group", { name: "Verificação anti-robô" })).toBeVisible();
    await page.keyboard.type(await solved(page));
    await afterMinimumTime(page);
    await page.keyboard.press("Enter");

    await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: "" });
    await expect(page.getByText(SUCCESS)).toBeVisible();
    await expect(form.email).toHaveValue("");
    await expect(answer).toHaveValue("");
  });

  test("a wrong answer is refused in place: the e-mail stays and the server's next question takes its place", async ({
    page,
    standIn,
  }) => {
    const form = signupForm(page);
    const email = uniqueEmail("conta-errada");
    await form.email.fill(email);
    await page.getByRole("button", { name: QUESTION_INSTEAD }).click();
    const token = page.locator('input[name="challengeToken"]');
    const firstToken = await token.inputValue();
    await page.getByLabel(QUESTION).fill(await solved(page, 1));
    await form.press();

    await expectToastKeepingEmail(page, "Resposta incorreta", "Confira a conta e responda à nova pergunta.", email);
    await expect(token).not.toHaveValue(firstToken);
    await expect(page.getByLabel(QUESTION)).toHaveValue("");
    await expect(form.captcha).toBeHidden();
    expect((await standIn.received()).webhook).toHaveLength(0);

    await page.getByLabel(QUESTION).fill(await solved(page));
    await form.press();
    await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: "" });
  });

  test("an invalid e-mail keeps the question on screen and the answer typed, even the question a wrong answer brought", async ({
    page,
    standIn,
  }) => {
    const form = signupForm(page);
    const email = uniqueEmail("pergunta-mantida");
    await form.email.fill(email);
    await page.getByRole("button", { name: QUESTION_INSTEAD }).click();
    await page.getByLabel(QUESTION).fill(await solved(page, 1));
    await form.press();
    await expect(page.getByText("Resposta incorreta")).toBeVisible();

    const question = await page.getByText(QUESTION).textContent();
    const answer = await solved(page);
    await page.getByLabel(QUESTION).fill(answer);
    const mistyped = email.replace(/\.com\.br$/, "");
    await form.email.fill(mistyped);
    await form.press();
    await expectToastKeepingEmail(page, "E-mail inválido", "Por favor, informe um e-mail válido.", mistyped);
    await expect(page.getByText(QUESTION)).toHaveText(question!);
    await expect(page.getByLabel(QUESTION)).toHaveValue(answer);
    expect((await standIn.received()).webhook).toHaveLength(0);

    await form.email.fill(email);
    await form.press();
    await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: "" });
  });

  test("the form breaks no axe rule with the captcha, nor once the question has taken its place", async ({ page }) => {
    const form = page.locator("#cadastro form");
    const axe = () => new AxeBuilder({ page }).include("#cadastro form").analyze();
    expect((await axe()).violations).toEqual([]);
    await page.getByRole("button", { name: QUESTION_INSTEAD }).click();
    await expect(form.getByLabel(QUESTION)).toBeVisible();
    expect((await axe()).violations).toEqual([]);
  });
});

test.describe("hCaptcha", () => {
  test("is not requested on load, only when the visitor scrolls near the form", async ({ page }) => {
    const captchaRequests: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("hcaptcha.com")) captchaRequests.push(request.url());
    });
    await fakeHcaptcha(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    await page.waitForLoadState("networkidle");
    expect(captchaRequests).toEqual([]);
    await signupForm(page).email.scrollIntoViewIfNeeded();
    await expect(signupForm(page).captcha).toBeVisible();
    expect(captchaRequests).toHaveLength(1);
    expect(captchaRequests[0]).toContain("sentry=false");
  });

  test("when its script cannot load, the fallback question signs the visitor up", async ({ page, standIn }) => {
    const form = await openNearForm(page, blockHcaptcha);
    const question = page.getByText(/^Quanto é \S+ (mais|menos) \S+\?$/);
    // The loader tries three times, a second apart, before giving up.
    await expect(question).toBeVisible({ timeout: 10_000 });
    const email = uniqueEmail("sem-hcaptcha");
    await form.email.fill(email);
    await page.getByLabel(/^Quanto é/).fill(String(solveQuestion((await question.textContent())!)));
    await form.press();
    await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: "" });
  });
});
