import { expect, test } from "./fixtures";

const SECTIONS_IN_ORDER = [
  "Lançamento em breve",
  "Em desenvolvimento",
  "Open Insurance",
  "Toda a sua previdência privada em um só app",
  "Seja o primeiro a saber!",
  "13M",
  "R$ 1T+",
  "100%",
  "Painel consolidado",
  "Crédito com garantia da previdência",
  "Portabilidade digital",
  "Educação financeira simples",
  "Gestão de consentimentos",
  "Integração Open Insurance",
  "Como vai funcionar",
  "Conecte seus planos",
  "Veja tudo em um só lugar",
  "Tome decisões inteligentes",
  "Mantenha o controle",
  "Receba o convite de lançamento",
  "Acesso antecipado",
  "Data de lançamento em primeira mão",
  "Dicas exclusivas de previdência",
  "Usamos seu e-mail apenas para avisar sobre o lançamento.",
  "Política de Privacidade",
  "Termos de Uso",
  "LGPD — Lei nº 13.709/2018",
  "Open Insurance — Resolução CNSP nº 415/2021",
  "Previdência complementar — Lei Complementar nº 109/2001",
  "contato@prevly.com.br",
  // The specification's constant.
  "© 2024 Prevly. Todos os direitos reservados.",
];

test("the landing page shows every section in order, in pt-BR; the form card starts with the e-mail field (above its label only the card's padding) on a phone and a desktop", async ({
  page,
}) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page.locator("html")).toHaveAttribute("lang", "pt-BR");
  const positions = await page.evaluate((texts) => {
    // innerText is what is rendered; compare without the case that CSS may transform.
    const body = document.body.innerText.toLocaleLowerCase("pt-BR");
    return texts.map((text) => body.indexOf(text.toLocaleLowerCase("pt-BR")));
  }, SECTIONS_IN_ORDER);
  SECTIONS_IN_ORDER.forEach((text, index) => expect(positions[index], `"${text}" missing`).toBeGreaterThanOrEqual(0));
  expect(positions).toEqual([...positions].sort((a, b) => a - b));

  await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
  await expect(page.locator("header")).toHaveCount(1);
  await expect(page.locator("main")).toHaveCount(1);
  await expect(page.locator("footer")).toHaveCount(1);
  await expect(page.locator("main section h3")).toHaveCount(6 + 4);
  const email = page.getByLabel("Seu e-mail");
  await expect(email).toHaveAttribute("type", "email");
  await expect(email).toHaveAttribute("placeholder", "Digite seu melhor e-mail");
  await expect(page.getByRole("link", { name: "contato@prevly.com.br" })).toHaveAttribute(
    "href",
    "mailto:contato@prevly.com.br",
  );

  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    // How far the e-mail label sits below the card's inner top edge (inside its border), and the card's top padding.
    const { labelBelowEdge, padding } = await page.evaluate(() => {
      const card = document.getElementById("signup-form")!;
      const labelTop = card.querySelector('label[for="email"]')!.getBoundingClientRect().top;
      return {
        labelBelowEdge: labelTop - (card.getBoundingClientRect().top + card.clientTop),
        padding: parseFloat(getComputedStyle(card).paddingTop),
      };
    });
    expect(padding, `${width} px`).toBeGreaterThan(0);
    expect(labelBelowEdge, `${width} px`).toBe(padding);
  }
});

// The server lane proves the status, the title and the server's log line (tests/server/headers.test.ts); the console
// is the browser's.
test("an unknown nested path's page leads home, and the path is logged in the browser's console", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto("/planos/antigos/nao-existe?ref=email");
  await expect(page.getByRole("link", { name: "Return to Home" })).toHaveAttribute("href", "/");
  await expect.poll(() => errors.find((text) => text.includes("/planos/antigos/nao-existe"))).toBeTruthy();
});
