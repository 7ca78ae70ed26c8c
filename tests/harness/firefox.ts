import { existsSync } from "node:fs";
import puppeteer from "puppeteer-core";
import type { Engine, EngineBrowser, LaunchOptions } from "./engine";

/** Debian's package, as CI and these machines install it. */
export const FIREFOX_PATH = "/usr/bin/firefox-esr";

export const findFirefox = () => (existsSync(FIREFOX_PATH) ? FIREFOX_PATH : undefined);

/**
 * Debian's Firefox ESR, headless, driven by puppeteer-core over WebDriver BiDi. Its prefs send HTTPS through the
 * proxy that answers for js.hcaptcha.com (loopback is never proxied) and turn JavaScript off when asked.
 */
export const firefox: Engine = {
  name: "Firefox",
  async launch({ javaScript, httpsProxy, width, height }: LaunchOptions): Promise<EngineBrowser> {
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
        "javascript.enabled": javaScript,
      },
    });
    try {
      const page = await browser.newPage();
      // Puppeteer's own element helpers run in a sandbox that Firefox refuses while the page's JavaScript is off: the
      // element is found and scrolled to in the page, and clicked with the mouse at its centre.
      const click = async (selector: string) => {
        const { x, y } = await page.evaluate((css) => {
          const element = document.querySelector(css);
          if (!element) throw new Error(`no element matches ${css}`);
          element.scrollIntoView({ block: "center", behavior: "instant" });
          const box = element.getBoundingClientRect();
          return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
        }, selector);
        await page.mouse.click(x, y);
      };
      return {
        page: {
          goto: async (url) => void (await page.goto(url)),
          click,
          type: async (selector, text) => {
            await click(selector);
            await page.keyboard.press("End");
            await page.keyboard.type(text);
          },
          press: (key) => page.keyboard.press(key),
          typeHere: (text) => page.keyboard.type(text),
          // Puppeteer's types also accept element handles as arguments; these are JSON values only.
          evaluate: <A extends unknown[], R>(fn: (...args: A) => R, ...args: A) =>
            page.evaluate(fn as (...values: unknown[]) => R, ...args) as Promise<Awaited<R>>,
        },
        close: () => browser.close(),
      };
    } catch (error) {
      await browser.close();
      throw error;
    }
  },
};
