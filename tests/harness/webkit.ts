import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { freePort } from "./app-server";
import { findProgram } from "./programs";
import { waitForPort } from "./wait";
import type { Engine, EngineBrowser, EngineKey, EnginePage, LaunchOptions } from "./engine";

/** Debian's webkit2gtk-driver puts MiniBrowser beside the engine's own processes, in the multiarch folder. */
export function findMiniBrowser(): string | undefined {
  const multiarch = ({ x64: "x86_64-linux-gnu", arm64: "aarch64-linux-gnu" } as Record<string, string>)[process.arch];
  return ["4.1", "4.0"].map((api) => `/usr/lib/${multiarch}/webkit2gtk-${api}/MiniBrowser`).find(existsSync);
}

/** WebDriver's codes for the keys the tests press. */
const KEY_CODES: Record<EngineKey, string> = { Tab: "\uE004", Enter: "\uE007", End: "\uE010" };

/**
 * WebKitGTK's MiniBrowser under its own Xvfb display, driven by WebKitWebDriver over classic WebDriver (plain HTTP
 * calls). MiniBrowser ignores the WebDriver `proxy` capability: the HTTPS proxy goes on its command line. Its
 * console does not reach the driver, so errors are caught inside the page (the tests' job).
 */
export const webkit: Engine = {
  name: "WebKit",
  async launch(options: LaunchOptions): Promise<EngineBrowser> {
    const miniBrowser = findMiniBrowser();
    const driverPath = findProgram("WebKitWebDriver");
    if (!miniBrowser || !driverPath)
      throw new Error("WebKitGTK's driver is not installed: apt-get install webkit2gtk-driver");
    const children: ChildProcess[] = [];
    const stopAll = async () => {
      for (const child of children.reverse()) if (child.exitCode === null && child.kill()) await once(child, "exit");
    };
    try {
      const display = await startXvfb(children);
      const port = await freePort();
      children.push(
        spawn(driverPath, [`--port=${port}`], { stdio: "ignore", env: { ...process.env, DISPLAY: display } }),
      );
      await waitForPort(port);
      const driver = `http://127.0.0.1:${port}`;
      const session = await command<{ sessionId: string }>(driver, "POST", "/session", {
        capabilities: {
          alwaysMatch: {
            browserName: "MiniBrowser",
            acceptInsecureCerts: true,
            "webkitgtk:browserOptions": {
              binary: miniBrowser,
              args: ["--automation", `--proxy=http://${options.httpsProxy}`, "--ignore-host=127.0.0.1"],
            },
          },
        },
      });
      const base = `/session/${session.sessionId}`;
      await command(driver, "POST", `${base}/window/rect`, { width: options.width, height: options.height });
      const call = <T>(method: string, path: string, body?: unknown) => command<T>(driver, method, base + path, body);
      const keys = (values: string[]) =>
        call("POST", "/actions", {
          actions: [
            {
              type: "key",
              id: "keyboard",
              actions: values.flatMap((value) => [
                { type: "keyDown", value },
                { type: "keyUp", value },
              ]),
            },
          ],
        });
      const page: EnginePage = {
        goto: async (url) => void (await call("POST", "/url", { url })),
        press: async (key) => void (await keys([KEY_CODES[key]])),
        typeHere: async (text) => void (await keys([...text])),
        evaluate: (fn, ...args) =>
          call("POST", "/execute/sync", { script: `return (${fn.toString()}).apply(null, arguments);`, args }),
      };
      return {
        page,
        close: async () => {
          await command(driver, "DELETE", base).catch(() => undefined);
          await stopAll();
        },
      };
    } catch (error) {
      await stopAll();
      throw error;
    }
  },
};

/** Xvfb on a display number it chooses itself (`-displayfd`), so runs side by side never collide. */
async function startXvfb(children: ChildProcess[]): Promise<string> {
  const xvfb = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"], {
    stdio: ["ignore", "ignore", "ignore", "pipe"],
  });
  children.push(xvfb);
  // It writes the display's number, one short line, on file descriptor 3; exiting first is a failure to start.
  const chosen = once(xvfb.stdio[3]!, "data").then(([number]) => `:${String(number).trim()}`);
  const exited = once(xvfb, "exit").then(([code]) => `Xvfb exited with ${code} before it chose a display`);
  const display = await Promise.race([chosen, exited]);
  if (!display.startsWith(":")) throw new Error(display);
  return display;
}

/** One WebDriver command; its `value`, or an error carrying the driver's own message. */
async function command<T>(driver: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(driver + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const { value } = (await response.json()) as { value: T & { error?: string; message?: string } };
  if (!response.ok) throw new Error(`WebDriver ${method} ${path}: ${value.error}: ${value.message}`);
  return value;
}
