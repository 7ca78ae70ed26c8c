import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";
import { emailLabelBelowCardEdge } from "../harness/form-card";
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
const INVALID_EMAIL = "E-mail inválido";
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

/** The webhook got exactly one body, and exactly this one: five fields, the time of the sign-up among them. */
function expectExactBody(expected: { email: string; hcaptchaToken: unknown; userAgent: string }, since: number) {
  const { webhook } = standIn.received;
  expect(webhook).toHaveLength(1);
  expect(webhook[0]!.headers["content-type"]).toBe("application/json");
  const body = webhook[0]!.body as Record<string, string>;
  expect(body).toEqual({ ...expected, source: "prevly-landing", ts: new Date(body.ts!).toISOString() });
  expect(Date.parse(body.ts!)).toBeGreaterThanOrEqual(since - 1000);
}

/** Reads the question on screen and types its answer. */
async function answerQuestion(page: EnginePage): Promise<string> {
  const question = await page.evaluate((label) => document.querySelector(label)!.textContent!, SELECTOR.answerLabel);
  const answer = String(solveQuestion(question));
  await page.type(SELECTOR.answer, answer);
  return answer;
}

async function press(page: EnginePage): Promise<number> {
  await afterMinimumTime(page, SIGNUP_SECRET);
  const pressed = Date.now();
  await page.click(SELECTOR.submit);
  return pressed;
}

const fieldValue = (page: EnginePage, selector: string) =>
  page.evaluate((css) => document.querySelector<HTMLInputElement>(css)!.value, selector);

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

    it("following the call to action brings the e-mail field into view and leaves the cursor in it", async () => {
      page = await visit();
      await page.click(SELECTOR.callToAction);
      await waitInPage(page, "the page at #cadastro", () => location.hash === "#cadastro");
      await waitInPage(
        page,
        "the e-mail field in view",
        (css) => {
          const box = document.querySelector(css)!.getBoundingClientRect();
          return box.top >= 0 && box.bottom <= innerHeight;
        },
        SELECTOR.email,
      );
      await waitForHydration(page);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("email");
    });

    it("the form card starts with the e-mail field, its padding and no more above it", async () => {
      page = await visit();
      const { labelBelowEdge, padding } = await page.evaluate(emailLabelBelowCardEdge);
      expect(padding).toBeGreaterThan(0);
      expect(labelBelowEdge).toBe(padding);
    });

    it("the captcha stand-in signs a visitor up: the answer on screen, the exact body at the webhook", async () => {
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
      const pressed = await press(page);
      await waitForText(page, TOAST, SIGNED_UP);
      const userAgent = await page.evaluate(() => navigator.userAgent);
      expectExactBody({ email, hcaptchaToken: expect.stringMatching(/^fake-token-/), userAgent }, pressed);
    });

    it("the question instead: an invalid e-mail keeps the answer typed; completing the address signs up", async () => {
      page = await visit();
      const local = `pergunta-${engine.name}.${Date.now().toString(36)}`;
      await page.type(SELECTOR.email, `${local}@exemplo`);
      await waitForHydration(page);
      await page.click(SELECTOR.questionInstead);
      await waitInPage(page, "the cursor in the answer", (id) => document.activeElement?.id === id, "question-answer");
      const answer = await answerQuestion(page);
      await press(page);
      await waitForText(page, TOAST, INVALID_EMAIL);
      expect(await fieldValue(page, SELECTOR.answer)).toBe(answer);
      expect(standIn.received.webhook).toHaveLength(0);

      await page.type(SELECTOR.email, ".com.br");
      const pressed = await press(page);
      await waitForText(page, TOAST, SIGNED_UP);
      const userAgent = await page.evaluate(() => navigator.userAgent);
      expectExactBody({ email: `${local}@exemplo.com.br`, hcaptchaToken: "", userAgent }, pressed);
    });
  });

  describe("without JavaScript", () => {
    const { visit } = launched(false);

    it("the question signs a visitor up: the answer on screen, the exact body at the webhook", async () => {
      const page = await visit();
      const email = uniqueEmail(`sem-js-${engine.name}`);
      await page.type(SELECTOR.email, email);
      await answerQuestion(page);
      const pressed = await press(page);
      await waitForText(page, '[role="status"]', SIGNED_UP);
      const userAgent = await page.evaluate(() => navigator.userAgent);
      expectExactBody({ email, hcaptchaToken: "", userAgent }, pressed);
    });

    it("an invalid e-mail is refused in place and kept in the field", async () => {
      const page = await visit();
      await page.type(SELECTOR.email, "ana@exemplo");
      await answerQuestion(page);
      await press(page);
      await waitForText(page, '[role="alert"]', INVALID_EMAIL);
      expect(await fieldValue(page, SELECTOR.email)).toBe("ana@exemplo");
      expect(standIn.received.webhook).toHaveLength(0);
    });
  });
});
