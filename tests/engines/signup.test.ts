import { afterAll, beforeAll, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";
import { chromiumEngine } from "../harness/chromium";
import type { Engine, EnginePage } from "../harness/engine";
import { firefox } from "../harness/firefox";
import { startHcaptchaHost } from "../harness/hcaptcha-host";
import { solveQuestion } from "../harness/question-solver";
import { sharedByTests } from "../harness/shared-by-tests";
import { readEarlier } from "../harness/signup-client";
import { standInPerFile } from "../harness/stand-in-per-file";
import { until } from "../harness/wait";
import { webkit } from "../harness/webkit";

/**
 * The keyboard journey, written once for every engine: Chromium, and those Playwright cannot drive here, Debian's
 * Firefox ESR and WebKitGTK; against the built server, the stand-in webhook and siteverify, and the fake hCaptcha
 * served as js.hcaptcha.com through the browser's HTTPS proxy.
 */
const ENGINES: Engine[] = [chromiumEngine, firefox, webkit];
/** A phone's window; Firefox keeps its windows at least 500 px wide, MiniBrowser 447 px. */
const PHONE = { width: 390, height: 844 };
const SIGNUP_SECRET = "engines-signing-secret-0123456789abcdef";
/** Boot, hydration and a sign-up's round trip on two shared cores: seconds, never this many. */
const WAIT_MS = 20_000;

const standIn = standInPerFile();
const hcaptcha = sharedByTests(startHcaptchaHost);
/**
 * A server for each engine: every engine signs up from 127.0.0.1, and a third sign-up through the question within a
 * minute would pass one address's share.
 */
const apps = new Map<Engine, RunningApp>();

beforeAll(async () => {
  for (const engine of ENGINES) apps.set(engine, await startApp({ ...standIn.captchaSettings, SIGNUP_SECRET }));
});
afterAll(async () => {
  for (const app of apps.values()) await app.stop();
});

/** Resolves once `check` holds in the page; a page that is navigating only answers later. */
async function waitInPage<A extends unknown[]>(
  page: EnginePage,
  what: string,
  check: (...args: A) => boolean,
  ...args: A
) {
  await until(() => page.evaluate(check, ...args).catch(() => false), { what, timeoutMs: WAIT_MS });
}

/** The element matching `selector` has the focus, and is whole on screen. */
function focusedInView(selector: string): boolean {
  const box = document.querySelector(selector)!.getBoundingClientRect();
  return document.activeElement?.matches(selector) === true && box.top >= 0 && box.bottom <= innerHeight;
}

/** Presses Tab until the element matching `selector` has the focus, as a keyboard user moves through the page. */
async function tabUntil(page: EnginePage, selector: string) {
  for (let presses = 0; presses < 30; presses += 1) {
    if (await page.evaluate((css) => document.activeElement?.matches(css) ?? false, selector)) return;
    await page.press("Tab");
  }
  throw new Error(`Tab never reached ${selector}`);
}

/**
 * Keeps every error the page meets from now on (uncaught errors and rejections, scripts that failed to load, CSP
 * violations) in the page itself: WebKit's console does not reach its driver. Installed before the visitor brings the
 * page's scripts (decision 018).
 */
const recordPageErrors = (page: EnginePage) =>
  page.evaluate(() => {
    const errors: string[] = [];
    Object.assign(window, { pageErrors: errors });
    const failed = (event: Event) =>
      event instanceof ErrorEvent ? event.message : `failed to load ${(event.target as HTMLScriptElement).src}`;
    addEventListener("error", (event) => errors.push(failed(event)), true);
    addEventListener("unhandledrejection", (event) => errors.push(`unhandled rejection: ${String(event.reason)}`));
    document.addEventListener("securitypolicyviolation", (event) =>
      errors.push(`CSP blocked ${event.blockedURI} (${event.violatedDirective})`),
    );
  });

/** Makes the form's bot-trap time one a person's reading has reached, so pressing now is a person's press. */
async function afterMinimumTime(page: EnginePage) {
  const field = 'input[name="from__confirm"]';
  const validFrom = await page.evaluate((css) => document.querySelector<HTMLInputElement>(css)!.value, field);
  const read = readEarlier(validFrom, SIGNUP_SECRET);
  await page.evaluate((css, value) => void (document.querySelector<HTMLInputElement>(css)!.value = value), field, read);
}

it.each(ENGINES)(
  "$name, by keyboard alone: the call to action, the question instead, back to the refused e-mail, the sign-up, the toast's close button",
  async (engine) => {
    const app = apps.get(engine)!;
    const browser = await engine.launch({ httpsProxy: hcaptcha().proxy, ...PHONE });
    try {
      const { page } = browser;
      await page.goto(`${app.origin}/`);
      await recordPageErrors(page);
      const local = `teclado-${engine.name}.${Date.now().toString(36)}`;
      await tabUntil(page, 'a[href="#cadastro"]');
      await page.press("Enter");
      // Firefox goes to a fragment after the link's own tasks, and took the focus with it (decision 018).
      await waitInPage(page, "the page at #cadastro", () => location.hash === "#cadastro");
      await waitInPage(page, "the cursor in the e-mail field, in view", focusedInView, "#email");
      await page.typeHere(`${local}@exemplo`);
      // Nearing the form booted the page, and the hydration left the cursor where it was.
      await waitInPage(page, "the page hydrated ('Cadastrar' disabled until a proof)", () =>
        Boolean(document.querySelector<HTMLButtonElement>('#signup-form button[type="submit"]')?.disabled),
      );
      await waitInPage(page, "the cursor still in the e-mail field", focusedInView, "#email");
      await tabUntil(page, "#signup-form button.js-only");
      await page.press("Enter");
      await waitInPage(page, "the cursor in the answer", focusedInView, "#question-answer");
      const question = await page.evaluate(() => document.querySelector('label[for="question-answer"]')!.textContent!);
      const answer = String(solveQuestion(question));
      await page.typeHere(answer);
      await afterMinimumTime(page);
      await page.press("Enter");
      // Only the address needs fixing: the question stays, the answer typed with it.
      const refusal = (typed: string) => {
        const field = document.activeElement;
        const kept = document.querySelector<HTMLInputElement>("#question-answer")?.value === typed;
        return field?.id === "email" && field.ariaInvalid === "true" && kept;
      };
      await waitInPage(page, "the cursor back in the e-mail field, marked refused, the answer kept", refusal, answer);
      expect(standIn.received.webhook).toHaveLength(0);

      await page.press("End");
      await page.typeHere(".com.br");
      await page.press("Enter");
      await waitInPage(page, "'Cadastro realizado!' on screen", () =>
        [...document.querySelectorAll("[data-sonner-toast]")].some((toast) =>
          toast.textContent?.includes("Cadastro realizado!"),
        ),
      );
      // The webhook got this one sign-up, with the browser's own user agent (the body's fields: unit/delivery).
      const userAgent = await page.evaluate(() => navigator.userAgent);
      expect(standIn.received.webhook.map((hit) => hit.body)).toEqual([
        expect.objectContaining({ email: `${local}@exemplo.com.br`, hcaptchaToken: "", userAgent }),
      ]);
      expect(await page.evaluate(() => (window as unknown as { pageErrors: string[] }).pageErrors)).toEqual([]);
      await tabUntil(page, "[data-sonner-toast] button[data-close-button]");
      await page.press("Enter");
      await waitInPage(
        page,
        "the toast closed",
        () => !document.querySelector('[data-sonner-toast]:not([data-removed="true"])'),
      );
    } finally {
      await browser.close();
    }
  },
);
