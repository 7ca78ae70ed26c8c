import type { Page } from "@playwright/test";
import { solveQuestion } from "../harness/question-solver";
import { startNginxBalancer } from "../harness/real-servers";
import { APP_ORIGIN } from "./support/ports";
import { expect, keepScreenshot, signupForm, test, uniqueEmail } from "./fixtures";

test.use({ javaScriptEnabled: false });

const QUESTION = /^Quanto é \S+ (mais|menos) \S+\?$/;

async function answerQuestion(page: Page, offset = 0) {
  const question = (await page.getByText(QUESTION).textContent())!;
  await page.getByLabel(QUESTION).fill(String(solveQuestion(question) + offset));
}

/** Types `email`, answers the question (`offset` off the right answer) and presses 'Cadastrar'. */
async function sendWithAnswer(page: Page, email: string, offset = 0) {
  const form = signupForm(page);
  await form.email.fill(email);
  await answerQuestion(page, offset);
  await form.press();
}

/** The answer's title and text in the page's alert, and what the visitor typed still in the field. */
async function expectRefusedInPlace(page: Page, title: string, text: string, email: string) {
  await expect(page.getByRole("alert")).toContainText(title);
  await expect(page.getByRole("alert")).toContainText(text);
  await expect(signupForm(page).email).toHaveValue(email);
}

test("a visitor without JavaScript answers the question and is signed up once, even after a refresh", async ({
  page,
  standIn,
}) => {
  await page.goto("/");
  const form = signupForm(page);
  const email = uniqueEmail("sem-js");
  await sendWithAnswer(page, email);

  const status = page.getByRole("status");
  await expect(status).toContainText("Cadastro realizado!");
  await expect(status).toContainText("Você será notificado assim que o Prevly for lançado.");
  await expect(form.email).toHaveValue("");
  let received = await standIn.received();
  expect(received.webhook).toHaveLength(1);
  expect(received.webhook[0]!.body).toMatchObject({ email, hcaptchaToken: "", source: "prevly-landing" });

  // Reloading the result page posts the same form again: success, no second relay.
  await page.reload();
  await expect(page.getByRole("status")).toContainText("Cadastro realizado!");
  received = await standIn.received();
  expect(received.webhook).toHaveLength(1);
});

test("through the shipped nginx on a port of its own, a visitor without JavaScript signs up", async ({
  page,
  standIn,
}) => {
  // The form's Origin names the port; nginx must pass the Host with it, or Remix refuses the post (a blank 500).
  const balancer = await startNginxBalancer([APP_ORIGIN]);
  try {
    await page.goto(`${balancer.origin}/?utm_source=news`);
    const email = uniqueEmail("pelo-nginx");
    await sendWithAnswer(page, email);
    await expect(page.getByRole("status")).toContainText("Cadastro realizado!");
    expect((await standIn.received()).webhook.map((hit) => hit.body)).toEqual([expect.objectContaining({ email })]);
  } finally {
    await balancer.stop();
  }
});

test("a wrong answer explains itself, keeps the e-mail and asks a new question", async ({ page, standIn }) => {
  await page.goto("/");
  const form = signupForm(page);
  const email = uniqueEmail("errou");
  const firstQuestion = await page.getByText(QUESTION).textContent();
  const firstToken = await page.locator('input[name="challengeToken"]').inputValue();
  await sendWithAnswer(page, email, 1);

  const alert = page.getByRole("alert");
  await expect(alert).toContainText("Resposta incorreta");
  await expect(form.email).toHaveValue(email);
  expect(await page.locator('input[name="challengeToken"]').inputValue()).not.toBe(firstToken);
  expect(firstQuestion).toMatch(QUESTION);
  expect((await standIn.received()).webhook).toHaveLength(0);

  await answerQuestion(page);
  await form.press();
  await expect(page.getByRole("status")).toContainText("Cadastro realizado!");
  expect((await standIn.received()).webhook).toHaveLength(1);
});

test("an invalid e-mail is refused in place, the e-mail, the question and its answer kept; corrected, it signs up", async ({
  page,
  standIn,
}) => {
  await page.goto("/");
  const question = await page.getByText(QUESTION).textContent();
  await sendWithAnswer(page, "ana@exemplo");
  await expectRefusedInPlace(page, "E-mail inválido", "Por favor, informe um e-mail válido.", "ana@exemplo");
  const answer = page.getByLabel(QUESTION);
  await expect(answer).toHaveAccessibleName(question!);
  await expect(answer).toHaveValue(String(solveQuestion(question!)));
  expect((await standIn.received()).webhook).toHaveLength(0);

  const email = uniqueEmail("corrigiu");
  await signupForm(page).email.fill(email);
  await signupForm(page).press();
  await expect(page.getByRole("status")).toContainText("Cadastro realizado!");
  expect((await standIn.received()).webhook.map((hit) => hit.body)).toEqual([expect.objectContaining({ email })]);
});

test("leaving the question blank asks for the answer, not for a captcha that is not there", async ({
  page,
  standIn,
}) => {
  await page.goto("/");
  const form = signupForm(page);
  const email = uniqueEmail("em-branco");
  await form.email.fill(email);
  await form.press();
  await expectRefusedInPlace(
    page,
    "Valide o captcha",
    "Responda à pergunta de verificação acima para concluir o cadastro.",
    email,
  );
  expect((await standIn.received()).webhook).toHaveLength(0);
});

test("a webhook failure is shown in place and the e-mail is kept", async ({ page, standIn }) => {
  await standIn.setWebhook({ status: 503, text: "manutenção" });
  await page.goto("/");
  const email = uniqueEmail("sem-js-falha");
  await sendWithAnswer(page, email);
  await expectRefusedInPlace(page, "Falha ao enviar", "Webhook retornou 503 Service Unavailable: manutenção", email);
});

const TITLE = "Prevly — sua previdência privada em um só app";

for (const screen of [
  { width: 320, height: 640 },
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1280, height: 800 },
]) {
  test(`at ${screen.width}×${screen.height} every answer lands on screen with the field it is about, and the title says it`, async ({
    page,
    standIn,
  }, testInfo) => {
    const shot = (name: string) => keepScreenshot(page, testInfo, `${name}-${screen.width}`);
    await page.setViewportSize(screen);
    await page.goto("/");
    const form = signupForm(page);
    const answer = page.getByLabel(QUESTION);

    await form.email.fill("ana@exemplo");
    await form.press();
    await expect(page.getByRole("alert")).toContainText("E-mail inválido");
    await expect(page.getByRole("alert")).toBeInViewport({ ratio: 1 });
    await expect(form.email).toBeInViewport({ ratio: 1 });
    await expect(page).toHaveTitle(`E-mail inválido — ${TITLE}`);
    await shot("email-invalido");

    const email = uniqueEmail(`tela-${screen.width}`);
    await form.email.fill(email);
    await form.press();
    await expect(page.getByRole("alert")).toContainText("Responda à pergunta de verificação acima");
    await expect(page.getByRole("alert")).toBeInViewport({ ratio: 1 });
    await expect(answer).toBeInViewport({ ratio: 1 });
    await expect(page).toHaveTitle(`Valide o captcha — ${TITLE}`);
    await shot("pergunta");

    await answerQuestion(page);
    await form.press();
    await expect(page.getByRole("status")).toContainText("Cadastro realizado!");
    await expect(page.getByRole("status")).toBeInViewport({ ratio: 1 });
    await expect(page).toHaveTitle(`Cadastro realizado! — ${TITLE}`);
    await shot("cadastro-realizado");
    expect((await standIn.received()).webhook).toHaveLength(1);
  });
}
