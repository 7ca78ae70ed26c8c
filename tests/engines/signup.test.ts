import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";
import { solveQuestion } from "../harness/question-solver";
import { StandIn } from "../harness/stand-in";
import type { Engine, EngineBrowser, EnginePage } from "../harness/engine";
import { firefox } from "../harness/firefox";
import { startHcaptchaHost, type HcaptchaHost } from "../harness/hcaptcha-host";
import {
  afterMinimumTime,
  pageErrors,
  recordPageErrors,
  SELECTOR,
  waitForHydration,
  waitForText,
  waitInPage,
} from "./support/visitor";
import { webkit } from "../harness/webkit";

/**
 * The sign-up in the engines Playwright cannot drive here: Debian's Firefox ESR and WebKitGTK, each against its own
 * built server (so each engine's question relays have the address's whole budget), the stand-in webhook and
 * siteverify, and the fake hCaptcha served as js.hcaptcha.com through the browser's HTTPS proxy. Chromium runs the
 * same paths, and more, in tests/e2e.
 */
const ENGINES: Engine[] = [firefox, webkit];
/** A phone's window; Firefox keeps its windows at least 500 px wide, MiniBrowser 447 px. */
const PHONE = { width: 390, height: 844 };
const SIGNUP_SECRET = "engines-signing-secret-0123456789abcdef";
const SIGNED_UP = "Cadastro realizado!";
const TOAST = "[data-sonner-toast]";

let standIn: StandIn;
let hcaptcha: HcaptchaHost;

beforeAll(async () => {
  standIn = new StandIn();
  await standIn.start();
  hcaptcha = await startHcaptchaHost();
});
afterAll(async () => {
  await hcaptcha?.stop();
  await standIn?.stop();
});

let visitors = 0;
/** A fresh address per sign-up, so none is taken for a replay of another. */
const uniqueEmail = (tag: string) => `${tag}.${Date.now().toString(36)}${++visitors}@exemplo.com.br`;

/** The webhook got one sign-up, this one, with the browser's own user agent (the body's fields: unit/delivery). */
async function expectSignedUp(page: EnginePage, expected: { email: string; hcaptchaToken: unknown }) {
  await waitForText(page, TOAST, SIGNED_UP);
  const userAgent = await page.evaluate(() => navigator.userAgent);
  expect(standIn.received.webhook.map((hit) => hit.body)).toEqual([
    expect.objectContaining({ ...expected, userAgent }),
  ]);
}

/** Presses Tab until the element matching `selector` has the focus, as a keyboard user moves through the page. */
async function tabUntil(page: EnginePage, selector: string) {
  for (let presses = 0; presses < 30; presses += 1) {
    if (await page.evaluate((css) => document.activeElement?.matches(css) ?? false, selector)) return;
    await page.press("Tab");
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Reads the question on screen and types its answer. */
async function answerQuestion(page: EnginePage): Promise<void> {
  const question = await page.evaluate((label) => document.querySelector(label)!.textContent!, SELECTOR.answerLabel);
  await page.type(SELECTOR.answer, String(solveQuestion(question)));
}

async function press(page: EnginePage): Promise<void> {
  await afterMinimumTime(page, SIGNUP_SECRET);
  await page.click(SELECTOR.submit);
}

describe.each(ENGINES)("$name", (engine) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({
      WEBHOOK_URL: standIn.webhookUrl,
      HCAPTCHA_SECRET: "0x0000000000000000000000000000000000000000",
      HCAPTCHA_VERIFY_URL: standIn.siteverifyUrl,
      SIGNUP_SECRET,
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** One browser for the tests of a describe, each test a fresh visit of the page. */
  function launched(javaScript: boolean) {
    let browser: EngineBrowser;
    beforeAll(async () => {
      browser = await engine.launch({ javaScript, httpsProxy: hcaptcha.proxy, ...PHONE });
    });
    afterAll(async () => {
      await browser?.close();
    });
    return {
      visit: async () => {
        standIn.reset();
        await browser.page.goto(`${app.origin}/`);
        if (javaScript) await recordPageErrors(browser.page);
        return browser.page;
      },
    };
  }

  describe("with JavaScript", () => {
    const { visit } = launched(true);
    let page: EnginePage;

    afterEach(async () => {
      if (page) expect(await pageErrors(page)).toEqual([]);
    });

    it("the captcha stand-in signs a visitor up: the answer on screen, the sign-up at the webhook", async () => {
      page = await visit();
      const email = uniqueEmail(`captcha-${engine.name}`);
      await page.type(SELECTOR.email, email);
      await waitForHydration(page);
      await waitInPage(page, "the captcha", (css) => document.querySelector(css) !== null, SELECTOR.captcha);
      await page.click(SELECTOR.captcha);
      await waitInPage(
        page,
        "'Cadastrar' enabled by the solved captcha",
        (css) => !document.querySelector<HTMLButtonElement>(css)!.disabled,
        SELECTOR.submit,
      );
      await press(page);
      await expectSignedUp(page, { email, hcaptchaToken: expect.stringMatching(/^fake-token-/) });
    });

    it("by keyboard alone: the call to action, the question instead, back to the refused e-mail, the sign-up", async () => {
      page = await visit();
      const local = `teclado-${engine.name}.${Date.now().toString(36)}`;
      await tabUntil(page, SELECTOR.callToAction);
      await page.press("Enter");
      // Firefox goes to a fragment after the link's own tasks, and took the focus with it (decision 018).
      await waitInPage(page, "the page at #cadastro", () => location.hash === "#cadastro");
      await waitInPage(
        page,
        "the cursor in the e-mail field, in view",
        (css) => {
          const field = document.querySelector(css)!;
          const box = field.getBoundingClientRect();
          return document.activeElement === field && box.top >= 0 && box.bottom <= innerHeight;
        },
        SELECTOR.email,
      );
      await page.typeHere(`${local}@exemplo`);
      await waitForHydration(page);
      await tabUntil(page, SELECTOR.questionInstead);
      await page.press("Enter");
      await waitInPage(page, "the cursor in the answer", (id) => document.activeElement?.id === id, "question-answer");
      const question = await page.evaluate(
        (label) => document.querySelector(label)!.textContent!,
        SELECTOR.answerLabel,
      );
      await page.typeHere(String(solveQuestion(question)));
      await afterMinimumTime(page, SIGNUP_SECRET);
      await page.press("Enter");
      await waitInPage(
        page,
        "the cursor back in the e-mail field, marked refused",
        (css) =>
          document.activeElement === document.querySelector(css) && document.activeElement?.ariaInvalid === "true",
        SELECTOR.email,
      );
      expect(standIn.received.webhook).toHaveLength(0);

      await page.press("End");
      await page.typeHere(".com.br");
      await page.press("Enter");
      await expectSignedUp(page, { email: `${local}@exemplo.com.br`, hcaptchaToken: "" });
    });
  });

  describe("without JavaScript", () => {
    const { visit } = launched(false);

    it("the question signs a visitor up: the answer on screen, the sign-up at the webhook", async () => {
      const page = await visit();
      const email = uniqueEmail(`sem-js-${engine.name}`);
      await page.type(SELECTOR.email, email);
      await answerQuestion(page);
      await press(page);
      await waitForText(page, '[role="status"]', SIGNED_UP);
      expect(standIn.received.webhook.map((hit) => hit.body)).toEqual([expect.objectContaining({ email })]);
    });
  });
});
