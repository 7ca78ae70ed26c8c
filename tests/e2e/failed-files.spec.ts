import type { Page, Route } from "@playwright/test";
import { createHash } from "node:crypto";
import { BOOT_PATIENCE_MS } from "~/components/deferred-boot";
import { CAPTCHA_PATIENCE_MS } from "~/components/signup-form";
import { HCAPTCHA_SCRIPT } from "../harness/fake-hcaptcha-api";
import {
  APP_SCRIPT,
  expect,
  expectSignedUpOnce,
  QUESTION,
  signupForm,
  test,
  uniqueEmail,
  waitForHydration,
} from "./fixtures";

/**
 * Every file the page fetches can fail. Whichever does, the visitor is left, without a press, a form that signs up
 * (the question in place of the captcha), and what they typed first stays. A file that fails to load, whatever its
 * answer (an error status, a lost connection), is one rejected import for the boot (deferred-boot.tsx): the cases are
 * the framework's modules failing, the entry failing after them, the lazy chunk failing after hydration.
 */

/** Types the address (which boots the page), then answers the question once it is offered, and presses 'Cadastrar'. */
async function signUpThroughQuestion(page: Page, email: string, offered: () => Promise<void> = async () => {}) {
  const form = signupForm(page);
  await form.email.fill(email);
  await offered();
  await expect(page.getByText(QUESTION)).toBeVisible();
  await form.answerQuestion();
  await expect(form.email).toHaveValue(email);
  await form.press();
}

/** Never answers: a request the network lost. */
const never = () => new Promise<void>(() => {});

/** The page itself, whose policy is given without the hash of the inline script `script` finds: a browser blocks it. */
const PAGE = /^http:\/\/[^/]+\/$/;
const policyBlocking = (script: RegExp) => async (route: Route) => {
  const response = await route.fetch();
  const body = await response.text();
  const hash = `'sha256-${createHash("sha256").update(script.exec(body)![1]!).digest("base64")}'`;
  const policy = response.headers()["content-security-policy"]!.replace(hash, "");
  await route.fulfill({ response, body, headers: { ...response.headers(), "content-security-policy": policy } });
};

const failures: Array<{ what: string; files: RegExp; answer: (route: Route) => Promise<void> }> = [
  {
    what: "entry.client is not valid JavaScript",
    files: /\/build\/entry\.client-[^/]+\.js$/,
    answer: (route) => route.fulfill({ status: 200, contentType: "text/javascript", body: "export default {" }),
  },
  {
    what: "every module answers 404 (a tab left open over a redeploy)",
    files: APP_SCRIPT,
    answer: (route) => route.fulfill({ status: 404, body: "Not Found" }),
  },
  {
    what: "the boot's own script never runs (a policy without its hash, as for a browser that cannot parse it)",
    files: PAGE,
    answer: policyBlocking(/<script>(window\.__remixContext[\s\S]*?)<\/script>/),
  },
  {
    what: "the captcha-and-toasts chunk answers 404",
    files: /signup-enhancements-[^/]+\.js$/,
    answer: (route) => route.fulfill({ status: 404, body: "Not Found" }),
  },
];

test.use({ viewport: { width: 390, height: 844 } });

for (const { what, files, answer } of failures) {
  test(`${what}: the visitor signs up through the question, with the e-mail typed first`, async ({ page, standIn }) => {
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.route(files, answer);
    await page.goto("/");
    const email = uniqueEmail("arquivo");
    await signUpThroughQuestion(page, email);
    await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: "" });
    // Nothing the visitor cannot see went wrong: a file that failed is not a crash of the page's own code.
    expect(errors.filter((message) => !/import|module|fetch|Unexpected end/i.test(message))).toEqual([]);
  });
}

test("a policy that blocks the mark in <head>: the boot marks the page itself, and the captcha signs up", async ({
  page,
  standIn,
}) => {
  await page.route(PAGE, policyBlocking(/<head>[\s\S]*?<script>([\s\S]*?)<\/script>/));
  await page.goto("/");
  const email = uniqueEmail("sem-marca");
  await signupForm(page).send(email);
  await expectSignedUpOnce(page, standIn, { email });
});

test("a module that never arrives: after the boot's patience the form works without it", async ({ page, standIn }) => {
  await page.clock.install();
  await page.route(/\/build\/routes\/_index-[^/]+\.js$/, never);
  await page.goto("/");
  const email = uniqueEmail("parado");
  await signUpThroughQuestion(page, email, async () => {
    // Not before the patience has run: halfway through it, the form still waits for its scripts.
    await page.clock.fastForward(BOOT_PATIENCE_MS / 2);
    await expect(page.getByText(QUESTION)).toBeHidden();
    await page.clock.fastForward(BOOT_PATIENCE_MS / 2);
  });
  await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: "" });
});

test("hCaptcha's script that never arrives: after the captcha's patience the question takes its place", async ({
  page,
  standIn,
}) => {
  await page.clock.install();
  await page.route(HCAPTCHA_SCRIPT, never);
  await page.goto("/");
  const email = uniqueEmail("sem-captcha");
  await signUpThroughQuestion(page, email, async () => {
    await expect(page.getByText("Carregando verificação anti-robô…")).toBeVisible();
    // The patience starts at hydration: the server's page shows the same words before it.
    await waitForHydration(page);
    await page.clock.fastForward(CAPTCHA_PATIENCE_MS);
  });
  await expectSignedUpOnce(page, standIn, { email, hcaptchaToken: "" });
});
