import type { Page } from "@playwright/test";
import { solveQuestion } from "../harness/question-solver";
import { startNginxBalancer } from "../harness/real-servers";
import { APP_ORIGIN } from "./support/ports";
import { expect, signupForm, test, uniqueEmail } from "./fixtures";

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

test("a webhook failure is shown in place and the e-mail is kept", async ({ page, standIn }) => {
  await standIn.setWebhook({ status: 503, text: "manutenção" });
  await page.goto("/");
  const email = uniqueEmail("sem-js-falha");
  await sendWithAnswer(page, email);
  await expectRefusedInPlace(page, "Falha ao enviar", "Webhook retornou 503 Service Unavailable: manutenção", email);
});
