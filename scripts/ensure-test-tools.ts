/**
 * `npm test`'s set-up (its `pretest`): the suites need more than Node and npm —
 * Chromium for Playwright and Lighthouse, Java for the Nu HTML Checker,
 * Debian's redis-server and nginx for the cluster suites, promtool (in Debian's
 * prometheus package) for the alert rules, and Debian's Firefox ESR, WebKitGTK's
 * driver (with its MiniBrowser) and Xvfb for the engines lane. Each is looked for
 * first; what is missing is installed where that is possible (Debian's
 * packages when running as root on Debian, Playwright's installer for
 * Chromium elsewhere), else the run stops with one line saying what to run.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { findChromium } from "../tests/harness/chromium";
import { FIREFOX_PATH, findFirefox } from "../tests/harness/firefox";
import { findProgram } from "../tests/harness/programs";
import { findMiniBrowser } from "../tests/harness/webkit";

type Tool = { name: string; found: () => unknown; debianPackage: string; elsewhere: string };

const TOOLS: Tool[] = [
  {
    name: "Chromium",
    found: findChromium,
    debianPackage: "chromium",
    elsewhere: "npx playwright install chromium (or set CHROMIUM_PATH to a Chromium or Chrome binary)",
  },
  {
    name: "Java (for the Nu HTML Checker)",
    found: () => findProgram("java"),
    debianPackage: "default-jre-headless",
    elsewhere: "install a Java runtime 11 or later",
  },
  {
    name: "redis-server",
    found: () => findProgram("redis-server"),
    debianPackage: "redis-server",
    elsewhere: "install Redis 6 or later",
  },
  { name: "nginx", found: () => findProgram("nginx"), debianPackage: "nginx", elsewhere: "install nginx" },
  {
    name: "promtool (for the alert rules)",
    found: () => findProgram("promtool"),
    debianPackage: "prometheus",
    elsewhere: "install Prometheus 2.42 or later, whose release archive holds promtool, and put it on PATH",
  },
  {
    name: "Firefox ESR",
    found: findFirefox,
    debianPackage: "firefox-esr",
    elsewhere: `install Firefox ESR as ${FIREFOX_PATH} (Debian's firefox-esr)`,
  },
  {
    name: "WebKitWebDriver and MiniBrowser",
    found: () => findProgram("WebKitWebDriver") && findMiniBrowser(),
    debianPackage: "webkit2gtk-driver",
    elsewhere: "install WebKitGTK's WebDriver and MiniBrowser (Debian's webkit2gtk-driver)",
  },
  { name: "Xvfb", found: () => findProgram("Xvfb"), debianPackage: "xvfb", elsewhere: "install Xvfb" },
];

const rootOnDebian = process.getuid?.() === 0 && existsSync("/etc/debian_version") && existsSync("/usr/bin/apt-get");

function run(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    return true;
  } catch {
    return false;
  }
}

// The suite proves the Node the image ships; package.json's `engines` names the same floor.
const NODE_FLOOR = 24;
if (Number(process.versions.node.split(".")[0]) < NODE_FLOOR) {
  console.error(
    `test tools: Node ${NODE_FLOOR} or later is needed, this is ${process.version}: ` +
      `\`npm install --prefix ~/node${NODE_FLOOR} node@${NODE_FLOOR}\` and put ~/node${NODE_FLOOR}/node_modules/.bin first on PATH`,
  );
  process.exit(1);
}

let missing = TOOLS.filter((tool) => !tool.found());
if (missing.length > 0 && rootOnDebian) {
  console.log(`test tools: installing ${missing.map((tool) => tool.debianPackage).join(", ")} (apt-get)`);
  // A mirror's passing failure (a timeout, a file mid-sync) is tried again rather than failing the suite.
  const retried = ["-o", "Acquire::Retries=3"];
  run("apt-get", ["update", "-qq", ...retried]);
  run("apt-get", [
    "install",
    "-y",
    "-qq",
    "--no-install-recommends",
    ...retried,
    ...missing.map((tool) => tool.debianPackage),
  ]);
  missing = missing.filter((tool) => !tool.found());
}
if (missing.some((tool) => tool.debianPackage === "chromium") && !rootOnDebian) {
  console.log("test tools: installing Playwright's Chromium");
  run("npx", ["playwright", "install", "chromium"]);
  missing = missing.filter((tool) => !tool.found());
}
for (const tool of missing) console.error(`test tools: ${tool.name} is missing: ${tool.elsewhere}`);
process.exit(missing.length > 0 ? 1 : 0);
