import { startNginxBalancer } from "../harness/real-servers";
import { APP_ORIGIN } from "./support/ports";
import { expect, expectRefused, signupForm, test, uniqueEmail } from "./fixtures";

test.use({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });

test("without JavaScript, through the shipped nginx on a port of its own: each refusal marks its field with the cursor in it, what was typed kept, the title saying it; a failure to send told in place; signed up", async ({
  page,
  standIn,
}) => {
  // The form's Origin names the port; nginx must pass the Host with it, or Remix refuses the post (a blank 500).
  const balancer = await startNginxBalancer([APP_ORIGIN]);
  try {
    await page.goto(`${balancer.origin}/?utm_source=news`);
    const form = signupForm(page);
    await form.email.fill("ana@exemplo");
    await form.answerQuestion();
    await form.press();
    await expectRefused(form.email, "Por favor, informe um e-mail válido.");
    await expect(form.email).toHaveValue("ana@exemplo");
    await expect(page.getByRole("alert")).toBeInViewport({ ratio: 1 });
    await expect(page).toHaveTitle(/^E-mail inválido — Prevly/);

    const email = uniqueEmail("sem-js");
    await form.email.fill(email);
    await form.answer.fill("");
    await form.press();
    await expectRefused(form.answer, "Responda à pergunta de verificação acima");
    await expect(form.email).not.toHaveAttribute("aria-invalid");
    await expect(form.email).toHaveValue(email);

    await standIn.setWebhook({ status: 503, text: "manutenção" });
    await form.answerQuestion();
    await form.press();
    await expect(page.getByRole("alert")).toContainText("Falha ao enviar");
    await expect(page.getByRole("alert")).toContainText("Webhook retornou 503 Service Unavailable: manutenção");
    await expect(form.email).toHaveValue(email);
    await standIn.setWebhook({ status: 200 });

    await form.answerQuestion();
    await form.press();
    await expect(page.getByRole("status")).toContainText("Cadastro realizado!");
    await expect(page.getByRole("status")).toBeInViewport({ ratio: 1 });
    await expect(page.locator("form [aria-invalid]")).toHaveCount(0);
    const relayed = (await standIn.received()).webhook.map((hit) => hit.body);
    expect(relayed).toEqual([expect.objectContaining({ email }), expect.objectContaining({ email })]);
  } finally {
    await balancer.stop();
  }
});
