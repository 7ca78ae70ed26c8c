import { solveQuestion } from "../harness/question-solver";
import { expect, signupForm, test, uniqueEmail } from "./fixtures";

test.use({ javaScriptEnabled: false });

const QUESTION = /^Quanto é \S+ (mais|menos) \S+\?$/;

async function answerQuestion(page: import("@playwright/test").Page, offset = 0) {
  const question = (await page.getByText(QUESTION).textContent())!;
  await page.getByLabel(QUESTION).fill(String(solveQuestion(question) + offset));
}

test("a visitor without JavaScript answers the question and is signed up once, even after a refresh", async ({
  page,
  standIn,
}) => {
  await page.goto("/");
  const form = signupForm(page);
  const email = uniqueEmail("sem-js");
  await form.email.fill(email);
  await answerQuestion(page);
  await form.press();

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

test("a wrong answer explains itself, keeps the e-mail and asks a new question", async ({ page, standIn }) => {
  await page.goto("/");
  const form = signupForm(page);
  const email = uniqueEmail("errou");
  const firstQuestion = await page.getByText(QUESTION).textContent();
  const firstToken = await page.locator('input[name="challengeToken"]').inputValue();
  await form.email.fill(email);
  await answerQuestion(page, 1);
  await form.press();

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

test("an invalid e-mail is refused in place and kept", async ({ page, standIn }) => {
  await page.goto("/");
  const form = signupForm(page);
  await form.email.fill("ana@exemplo");
  await answerQuestion(page);
  await form.press();
  await expect(page.getByRole("alert")).toContainText("E-mail inválido");
  await expect(page.getByRole("alert")).toContainText("Por favor, informe um e-mail válido.");
  await expect(form.email).toHaveValue("ana@exemplo");
  expect((await standIn.received()).webhook).toHaveLength(0);
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
  await expect(page.getByRole("alert")).toContainText("Valide o captcha");
  await expect(page.getByRole("alert")).toContainText(
    "Responda à pergunta de verificação acima para concluir o cadastro.",
  );
  await expect(form.email).toHaveValue(email);
  expect((await standIn.received()).webhook).toHaveLength(0);
});

test("a webhook failure is shown in place and the e-mail is kept", async ({ page, standIn }) => {
  await standIn.setWebhook({ status: 503, text: "manutenção" });
  await page.goto("/");
  const form = signupForm(page);
  const email = uniqueEmail("sem-js-falha");
  await form.email.fill(email);
  await answerQuestion(page);
  await form.press();
  await expect(page.getByRole("alert")).toContainText("Falha ao enviar");
  await expect(page.getByRole("alert")).toContainText("Webhook retornou 503 Service Unavailable: manutenção");
  await expect(form.email).toHaveValue(email);
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
    const shot = async (name: string) => {
      const path = testInfo.outputPath(`${name}-${screen.width}.png`);
      await page.screenshot({ path });
      await testInfo.attach(name, { path, contentType: "image/png" });
    };
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
