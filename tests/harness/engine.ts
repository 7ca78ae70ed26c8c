import puppeteer, { type LaunchOptions as PuppeteerOptions } from "puppeteer-core";

/**
 * What the cross-engine tests ask of a browser, whichever protocol drives it (CDP for Chromium, WebDriver BiDi for
 * Firefox, classic WebDriver for WebKit): a keyboard alone, through the driver, and functions run in the page.
 */
export type EnginePage = {
  goto: (url: string) => Promise<void>;
  /** One key pressed, or text typed, wherever the focus is. */
  press: (key: EngineKey) => Promise<void>;
  typeHere: (text: string) => Promise<void>;
  /** Runs `fn` in the page with `args` (JSON values) and returns its JSON result. */
  evaluate: <A extends unknown[], R>(fn: (...args: A) => R, ...args: A) => Promise<Awaited<R>>;
};

export type EngineKey = "Tab" | "Enter" | "End";

export type EngineBrowser = { page: EnginePage; close: () => Promise<void> };

export type LaunchOptions = {
  /** `host:port` of the HTTPS proxy that answers for js.hcaptcha.com (hcaptcha-host.ts). */
  httpsProxy: string;
  /** The window's size (each browser keeps a minimum width of its own). */
  width: number;
  height: number;
};

export type Engine = { name: string; launch: (options: LaunchOptions) => Promise<EngineBrowser> };

/**
 * A browser puppeteer-core drives, headless, accepting the proxy's self-signed certificate. The window's size, not an
 * emulated viewport: puppeteer's emulation needs BiDi commands Firefox 140 lacks.
 */
export async function launchWithPuppeteer(options: PuppeteerOptions): Promise<EngineBrowser> {
  const browser = await puppeteer.launch({
    headless: true,
    acceptInsecureCerts: true,
    defaultViewport: null,
    ...options,
  });
  const page = await browser.newPage().catch(async (error: unknown) => {
    await browser.close();
    throw error;
  });
  return {
    page: {
      goto: async (url) => void (await page.goto(url)),
      press: (key) => page.keyboard.press(key),
      typeHere: (text) => page.keyboard.type(text),
      // Puppeteer's types also accept element handles as arguments; these are JSON values only.
      evaluate: <A extends unknown[], R>(fn: (...args: A) => R, ...args: A) =>
        page.evaluate(fn as (...values: unknown[]) => R, ...args) as Promise<Awaited<R>>,
    },
    close: () => browser.close(),
  };
}
