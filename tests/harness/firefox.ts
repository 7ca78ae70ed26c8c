import { existsSync } from "node:fs";
import puppeteer from "puppeteer-core";
import type { Engine, EngineBrowser, LaunchOptions } from "./engine";

/** Debian's package, as CI and these machines install it. */
export const FIREFOX_PATH = "/usr/bin/firefox-esr";

export const findFirefox = () => (existsSync(FIREFOX_PATH) ? FIREFOX_PATH : undefined);

/**
 * Debian's Firefox ESR, headless, driven by puppeteer-core over WebDriver BiDi. Its prefs send HTTPS through the
 * proxy that answers for js.hcaptcha.com (loopback is never proxied).
 */
export const firefox: Engine = {
  name: "Firefox",
  async launch({ httpsProxy, width, height }: LaunchOptions): Promise<EngineBrowser> {
    const executablePath = findFirefox();
    if (!executablePath) throw new Error("Firefox is not installed: apt-get install firefox-esr");
    const [proxyHost, proxyPort] = httpsProxy.split(":");
    const browser = await puppeteer.launch({
      browser: "firefox",
      executablePath,
      headless: true,
      acceptInsecureCerts: true,
      // The window's size, not an emulated viewport: puppeteer's emulation needs BiDi commands Firefox 140 lacks.
      defaultViewport: null,
      args: [`--width=${width}`, `--height=${height}`],
      extraPrefsFirefox: {
        "network.proxy.type": 1,
        "network.proxy.ssl": proxyHost,
        "network.proxy.ssl_port": Number(proxyPort),
      },
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
  },
};
