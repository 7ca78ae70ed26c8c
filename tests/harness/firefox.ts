import { existsSync } from "node:fs";
import { launchWithPuppeteer, type Engine, type LaunchOptions } from "./engine";

/** Debian's package, as CI and these machines install it. */
export const FIREFOX_PATH = "/usr/bin/firefox-esr";

export const findFirefox = () => (existsSync(FIREFOX_PATH) ? FIREFOX_PATH : undefined);

/** Debian's Firefox ESR over WebDriver BiDi. Its prefs send HTTPS through the proxy (loopback is never proxied). */
export const firefox: Engine = {
  name: "Firefox",
  launch({ httpsProxy, width, height }: LaunchOptions) {
    const executablePath = findFirefox();
    if (!executablePath) throw new Error("Firefox is not installed: apt-get install firefox-esr");
    const [proxyHost, proxyPort] = httpsProxy.split(":");
    return launchWithPuppeteer({
      browser: "firefox",
      executablePath,
      args: [`--width=${width}`, `--height=${height}`],
      extraPrefsFirefox: {
        "network.proxy.type": 1,
        "network.proxy.ssl": proxyHost,
        "network.proxy.ssl_port": Number(proxyPort),
      },
    });
  },
};
