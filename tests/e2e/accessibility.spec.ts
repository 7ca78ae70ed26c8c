import AxeBuilder from "@axe-core/playwright";
import type { Locator } from "@playwright/test";
import Color from "color";
import { expect, expectRefused, expectSignedUpOnce, openNearForm, shownToast, test, uniqueEmail } from "./fixtures";

/** WCAG 2.2 AA: what the Lei Brasileira de Inclusão asks of the page, in every state of the form. */

const WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

test("with JavaScript, each refusal marks its field, says why beside it and takes the cursor there; a success clears the marks; axe finds nothing in any state", async ({
  page,
  standIn,
}) => {
  test.setTimeout(90_000); // five axe runs, each seconds on a busy machine
  const form = await openNearForm(page);
  const proof = page.getByRole("group", { name: "Verificação anti-robô" });
  const email = uniqueEmail("acessivel");
  const states: Array<{ state: string; reach: () => Promise<void>; refused?: [Locator, string] }> = [
    {
      state: "waiting for a proof",
      reach: async () => {
        await expect(form.captcha).toBeVisible();
        await expect(form.submit).toHaveAccessibleDescription(
          "Para liberar o botão Cadastrar, resolva o captcha acima ou responda à pergunta.",
        );
      },
    },
    {
      state: "an e-mail refused",
      reach: async () => {
        await form.send("ana@exemplo");
        await expect(page.getByRole("alert")).toHaveText("E-mail inválido");
      },
      refused: [form.email, "Por favor, informe um e-mail válido."],
    },
    {
      state: "the captcha refused by siteverify: the widget asks for a new token, nothing relayed",
      reach: async () => {
        await standIn.setSiteverify({ success: false });
        await form.send(email);
        await expect(form.captcha).toHaveAttribute("data-resets", "1");
        await expect(form.email).not.toHaveAttribute("aria-invalid");
        await expect(form.submit).toBeDisabled();
        await standIn.setSiteverify({ success: true });
      },
      refused: [proof, "Confirme que você não é um robô"],
    },
    {
      state: "the question answered wrong: the server's next question in its place",
      reach: async () => {
        await page.getByRole("button", { name: "Não consegue resolver o captcha? Responda a uma pergunta" }).click();
        const firstQuestion = await page.locator('input[name="challengeToken"]').inputValue();
        await form.answerQuestion(1);
        await form.press();
        await expect(page.locator('input[name="challengeToken"]')).not.toHaveValue(firstQuestion);
        await expect(form.answer).toHaveValue("");
        await expect(form.answer).toHaveAccessibleDescription(/Responda com algarismos ou por extenso\.$/);
      },
      refused: [form.answer, "Confira a conta e responda à nova pergunta."],
    },
    {
      state: "signed up",
      reach: async () => {
        await form.answerQuestion();
        await form.press();
        await expectSignedUpOnce(page, standIn, { email });
        await expect(page.getByRole("status").filter({ hasText: "Cadastro realizado!" })).toBeVisible();
        await expect(page.locator("#signup-form [aria-invalid]")).toHaveCount(0);
        await expect(page.locator("#signup-form").getByText(/^Erro:/)).toHaveCount(0);
      },
    },
  ];
  for (const { state, reach, refused } of states) {
    await test.step(state, async () => {
      await reach();
      if (refused) await expectRefused(...refused);
      const { violations } = await new AxeBuilder({ page }).withTags(WCAG_22_AA).analyze();
      expect(violations.map(({ id, nodes }) => `${id}: ${nodes.map((node) => node.target).join(" ")}`)).toEqual([]);
    });
  }
});

/** WCAG's contrast ratio of two CSS colours. */
const contrast = (a: string, b: string) => Color(a).contrast(Color(b));

/** Runs in the page: an element's focus ring and edge, and the colours behind it (each stop of a gradient). */
function renderedColours(element: Element) {
  const behind: string[] = [];
  for (let node = element.parentElement; node && behind.length === 0; node = node.parentElement) {
    const style = getComputedStyle(node);
    const stops = style.backgroundImage.match(/rgba?\([^)]+\)/g);
    if (stops) behind.push(...stops);
    else if (style.backgroundColor !== "rgba(0, 0, 0, 0)") behind.push(style.backgroundColor);
  }
  const own = getComputedStyle(element);
  return {
    focusVisible: element.matches(":focus-visible"),
    ring: own.outlineStyle === "none" ? null : own.outlineColor,
    edge: own.borderTopColor,
    fill: own.backgroundColor,
    behind,
  };
}

test("the focus ring is 3:1 against every background it appears on, the fields' edges 3:1, and each target 24×24 px at least", async ({
  page,
}) => {
  const form = await openNearForm(page);
  const questionInstead = page.getByRole("button", { name: /Responda a uma pergunta/ });
  const targets: Array<[string, Locator, before?: Locator]> = [
    ["call to action", page.getByRole("link", { name: "Seja o primeiro a saber!" })],
    ["e-mail", form.email],
    ["question instead", questionInstead],
    ["answer", form.answer, questionInstead],
    ["Cadastrar", form.submit],
    ["footer link", page.getByRole("link", { name: "Termos de Uso" })],
    ["toast's close button", page.getByRole("button", { name: "Fechar aviso" }), form.submit],
  ];
  const problems: string[] = [];
  for (const [name, target, pressedFirst] of targets) {
    if (pressedFirst) {
      await pressedFirst.focus();
      await page.keyboard.press("Enter");
    }
    await target.focus();
    const { focusVisible, ring, behind } = await target.evaluate(renderedColours);
    expect(focusVisible, name).toBe(true);
    for (const background of behind) {
      const ratio = ring ? contrast(ring, background) : 0;
      if (ratio < 3) problems.push(`${name}: ring ${ring} on ${background}, ${ratio.toFixed(2)}:1`);
    }
    const box = (await target.boundingBox())!;
    if (Math.round(box.width) < 24 || Math.round(box.height) < 24)
      problems.push(`${name}: ${box.width}×${box.height} px`);
  }
  expect(problems).toEqual([]);

  for (const field of [form.email, form.answer]) {
    const { edge, fill, behind } = await field.evaluate(renderedColours);
    for (const background of [fill, ...behind]) expect(contrast(edge, background)).toBeGreaterThanOrEqual(3);
  }
});

test("at 320 px with reduced motion: no smooth scroll, no toast animation; a refused field left at the screen's edge comes back with its message, clear of the toast; after a success one toast, the latest, whole on screen and clear of the field and the button, staying while the focus is in it", async ({
  page,
}, testInfo) => {
  // The error's own 4 s cannot run out while the test goes on: its time moves only as the test moves it.
  await page.clock.install();
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.setViewportSize({ width: 320, height: 640 });
  const form = await openNearForm(page);
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior)).toBe("auto");
  const toast = shownToast(page);
  const expectClearOfToast = async (parts: Locator[]) => {
    const covered = (await toast.boundingBox())!;
    for (const part of parts) {
      const box = (await part.boundingBox())!;
      expect(box.y >= covered.y + covered.height || box.y + box.height <= covered.y, "under the toast").toBe(true);
    }
  };
  await form.email.fill("bad@");
  await form.captcha.click();
  // The visitor scrolled on: the field's top is just above the screen when 'Cadastrar' is pressed.
  await form.email.evaluate((field) => window.scrollBy(0, field.getBoundingClientRect().top + 20));
  await form.press();
  await expectRefused(form.email, "Por favor, informe um e-mail válido.");
  await expect(toast).toContainText("E-mail inválido");
  expect(await toast.evaluate((element) => element.getAnimations().length)).toBe(0);
  expect(await toast.evaluate((element) => getComputedStyle(element).transitionDuration)).toMatch(/^0s(, 0s)*$/);
  const refused = [form.email, page.locator("#email-error")];
  for (const part of refused) await expect(part).toBeInViewport({ ratio: 1 });
  await expectClearOfToast(refused);
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
  await page.screenshot({ path: testInfo.outputPath("erro-320.png") });

  await form.email.fill(uniqueEmail("na-tela"));
  await form.press();
  await expect(async () => {
    await page.clock.runFor(10);
    await expect(toast.filter({ hasText: "Cadastro realizado!" })).toBeVisible({ timeout: 100 });
  }).toPass();
  // A frame for sonner to take the earlier toast away, far short of its 4 s.
  await page.clock.runFor(100);
  await expect(toast).toHaveCount(1);
  await expect(toast).toBeInViewport({ ratio: 1 });
  await expectClearOfToast([form.email, form.submit]);
  await page.screenshot({ path: testInfo.outputPath("sucesso-320.png") });

  await toast.getByRole("button", { name: "Fechar aviso" }).focus();
  await page.clock.runFor(10_000);
  await expect(toast).toContainText("Cadastro realizado!");
  await form.email.focus();
  await page.clock.runFor(5_000);
  await expect(toast).toHaveCount(0);
});

test("forced colours: the field's edge, the button in each state and the focus ring stay", async ({ page }) => {
  await page.emulateMedia({ forcedColors: "active" });
  const form = await openNearForm(page);
  /** Whether the element's edge (or, focused, its ring) is drawn in a colour other than what it sits on. */
  const drawn = (element: Element, ring: boolean) => {
    const style = getComputedStyle(element);
    const [line, width, colour] = ring
      ? [style.outlineStyle, style.outlineWidth, style.outlineColor]
      : [style.borderTopStyle, style.borderTopWidth, style.borderTopColor];
    const behind = getComputedStyle(document.body).backgroundColor;
    return line !== "none" && parseFloat(width) > 0 && colour !== behind && colour !== "rgba(0, 0, 0, 0)";
  };
  await expect(form.submit).toBeDisabled();
  expect(await form.submit.evaluate(drawn, false), "disabled 'Cadastrar'").toBe(true);
  await form.email.fill("ana@exemplo");
  await form.captcha.click();
  expect(await form.submit.evaluate(drawn, false), "'Cadastrar'").toBe(true);
  expect(await form.email.evaluate(drawn, false), "the e-mail's edge").toBe(true);
  await form.email.focus();
  expect(await form.email.evaluate(drawn, true), "the focus ring").toBe(true);
});

test.describe("text enlarged and spaced", () => {
  // The visitor's own style sheet, as a browser setting or extension adds it (the page's policy allows none).
  test.use({ bypassCSP: true });

  for (const { what, width, css } of [
    { what: "200 % text at 1280 px", width: 1280, css: "html { font-size: 200% !important }" },
    {
      what: "400 % zoom at 1280 px (320 px wide) with WCAG 1.4.12's text spacing",
      width: 320,
      css: "* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important } p { margin-bottom: 2em !important }",
    },
  ]) {
    test(`${what}: nothing scrolls sideways, no text is cut, the form's parts stay apart`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 });
      const form = await openNearForm(page);
      // The captcha mounts once the form is near: in place before the text grows and moves the form away.
      await expect(form.captcha).toBeVisible();
      await page.addStyleTag({ content: css });
      const layout = await page.evaluate(() => {
        const cut = [...document.body.querySelectorAll<HTMLElement>("*")].filter((element) => {
          const style = getComputedStyle(element);
          // The drawing beside the hero is decoration (hero.spec.ts): its text is drawn, not read.
          if (element.closest(".sr-only, #product-preview, svg")) return false;
          // Text past its box: cut where the box clips it, spilling over what is beside it where it does not.
          if (style.overflow === "visible") return element.scrollWidth > element.clientWidth + 1;
          return element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1;
        });
        const parts = [...document.querySelectorAll("#signup-form > *")]
          .map((part) => part.getBoundingClientRect())
          .filter((box) => box.height > 0);
        const overlapping = parts.filter((part, index) => index > 0 && part.top < parts[index - 1]!.bottom - 0.5);
        return {
          sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          cut: cut.map((element) => element.outerHTML.slice(0, 80)),
          overlapping: overlapping.length,
          outside: parts.filter((part) => part.left < 0 || part.right > innerWidth).length,
        };
      });
      expect(layout).toEqual({ sideways: 0, cut: [], overlapping: 0, outside: 0 });
    });
  }
});
