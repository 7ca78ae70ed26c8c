import { chromium } from "@playwright/test";
import { existsSync } from "node:fs";
import { launchWithPuppeteer, type Engine, type LaunchOptions } from "./engine";

/** Debian's package, as CI and these machines install it. */
const DEBIAN_CHROMIUM = "/usr/bin/chromium";

/**
 * The Chromium the suites drive: CHROMIUM_PATH when set, else Playwright's own
 * browser when it was downloaded (`npx playwright install chromium`), else
 * Debian's; undefined when there is none (`npm test` installs one first).
 */
export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, chromium.executablePath(), DEBIAN_CHROMIUM];
  return candidates.find((path): path is string => Boolean(path) && existsSync(path!));
}

export const chromiumPath = findChromium();

/** Headless as root in a container, and no calls home: the network here is closed. */
export const chromiumFlags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Chromium over CDP for the journeys every engine runs (tests/engines); HTTPS through the proxy, loopback never. */
export const chromiumEngine: Engine = {
  name: "Chromium",
  launch({ httpsProxy, width, height }: LaunchOptions) {
    if (!chromiumPath) throw new Error("Chromium is not installed: npx playwright install chromium");
    const sizeAndProxy = [`--window-size=${width},${height}`, `--proxy-server=https=${httpsProxy}`];
    return launchWithPuppeteer({
      browser: "chrome",
      executablePath: chromiumPath,
      args: [...chromiumFlags, ...sizeAndProxy],
    });
  },
};
