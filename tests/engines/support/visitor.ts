import { readEarlier } from "../../harness/signup-client";
import { until } from "../../harness/wait";
import type { EnginePage } from "../../harness/engine";

/** Boot, hydration and a sign-up's round trip on two shared cores: seconds, never this many. */
const WAIT_MS = 20_000;

export const SELECTOR = {
  callToAction: 'a[href="#cadastro"]',
  email: "#email",
  submit: '#signup-form button[type="submit"]',
  captcha: '[data-testid="fake-hcaptcha"]',
  questionInstead: "#signup-form button.js-only",
  answer: "#question-answer",
  answerLabel: 'label[for="question-answer"]',
} as const;

/**
 * Resolves once `check` holds in the page, asked again every few milliseconds; a page that is navigating (a post
 * without JavaScript) only answers later.
 */
export async function waitInPage<A extends unknown[]>(
  page: EnginePage,
  what: string,
  check: (...args: A) => boolean,
  ...args: A
): Promise<void> {
  await until(() => page.evaluate(check, ...args).catch(() => false), { what, timeoutMs: WAIT_MS });
}

/** Whether an element matching `selector` is rendered and holds `text`. */
function shows(selector: string, text: string): boolean {
  return [...document.querySelectorAll<HTMLElement>(selector)].some(
    (element) => element.getClientRects().length > 0 && (element.textContent ?? "").includes(text),
  );
}

export const waitForText = (page: EnginePage, selector: string, text: string) =>
  waitInPage(page, `'${text}' on screen`, shows, selector, text);

/**
 * Keeps every error the page meets from now on (uncaught errors and rejections, scripts that failed to load, CSP
 * violations) in the page itself: WebKit's console does not reach its driver. Installed right after the page
 * arrives, before the visitor brings the page's scripts (decision 018).
 */
export function recordPageErrors(page: EnginePage): Promise<void> {
  return page.evaluate(() => {
    const errors: string[] = [];
    (window as unknown as { pageErrors: string[] }).pageErrors = errors;
    addEventListener(
      "error",
      (event: Event) =>
        errors.push(
          event instanceof ErrorEvent ? event.message : `failed to load ${(event.target as HTMLScriptElement).src}`,
        ),
      true,
    );
    addEventListener("unhandledrejection", (event) => errors.push(`unhandled rejection: ${String(event.reason)}`));
    document.addEventListener("securitypolicyviolation", (event) =>
      errors.push(`CSP blocked ${event.blockedURI} (${event.violatedDirective})`),
    );
  });
}

export const pageErrors = (page: EnginePage) =>
  page.evaluate(() => (window as unknown as { pageErrors: string[] }).pageErrors);

/**
 * Makes the form's bot-trap time one a person's reading has reached (readEarlier, signed with the app's
 * `secret`), so pressing now is a person's press, not a bot's, without waiting for it.
 */
export async function afterMinimumTime(page: EnginePage, secret: string): Promise<void> {
  const field = 'input[name="from__confirm"]';
  const validFrom = await page.evaluate((selector) => document.querySelector<HTMLInputElement>(selector)!.value, field);
  const read = readEarlier(validFrom, secret);
  await page.evaluate(
    (selector, value) => void (document.querySelector<HTMLInputElement>(selector)!.value = value),
    field,
    read,
  );
}

/** The page has hydrated: the server sends 'Cadastrar' enabled, and the hydrated form disables it until a proof. */
export const waitForHydration = (page: EnginePage) =>
  waitInPage(
    page,
    "the page hydrated ('Cadastrar' disabled)",
    (selector) => document.querySelector<HTMLButtonElement>(selector)!.disabled,
    SELECTOR.submit,
  );
