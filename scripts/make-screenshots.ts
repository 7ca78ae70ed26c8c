/**
 * `npm run screenshots`: the README's pictures of the page, taken in Chromium from the built site as
 * `npm start` serves it: the first screen on a phone (docs/images/page-phone.png) and on a desktop
 * (docs/images/page-desktop.png). Run it after changing what the first screen shows, look at the two
 * files and commit them.
 */
import { chromium } from "@playwright/test";
import { mkdirSync, statSync } from "node:fs";
import { ROOT, startApp } from "../tests/harness/app-server";
import { chromiumFlags, chromiumPath } from "../tests/harness/chromium";

const SHOTS = [
  { file: "docs/images/page-phone.png", viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true },
  {
    file: "docs/images/page-desktop.png",
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    isMobile: false,
  },
];

mkdirSync(`${ROOT}docs/images`, { recursive: true });
const app = await startApp({});
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
try {
  for (const { file, ...device } of SHOTS) {
    const tab = await browser.newPage({ ...device, hasTouch: device.isMobile });
    // Nothing leaves the machine: hCaptcha's script loads only near the form, and is not pictured.
    await tab.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
    await tab.goto(`${app.origin}/`, { waitUntil: "load" });
    await tab.evaluate(() => document.fonts.ready);
    await tab.screenshot({ path: `${ROOT}${file}`, type: "png" });
    await tab.close();
    const { width, height } = device.viewport;
    console.log(`${file}: ${width}×${height} CSS px, ${statSync(`${ROOT}${file}`).size.toLocaleString("en")} bytes`);
  }
} finally {
  await browser.close();
  await app.stop();
}
