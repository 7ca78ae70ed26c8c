import { existsSync } from "node:fs";

/** Debian's Chromium where it is installed (CI, these machines); otherwise the tool's own browser. */
const DEBIAN_CHROMIUM = "/usr/bin/chromium";

export const chromiumPath: string | undefined = existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined;

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
