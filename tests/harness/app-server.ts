import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import getPort from "get-port";
import { until, waitForOk } from "./wait";

/** The repository's folder, ending in a slash: the one definition every suite and script uses. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUILD = `${ROOT}build/index.js`;
/** `npm start` without npm in between: remix-serve on the build, as the image runs it. */
export const SERVE_COMMAND = [process.execPath, `${ROOT}node_modules/@remix-run/serve/dist/cli.js`, BUILD];

/** The environment `npm start` runs with here: production, on loopback, on `port`. */
export function serveEnv(port: number | string) {
  return { PATH: process.env.PATH ?? "", NODE_ENV: "production" as const, HOST: "127.0.0.1", PORT: String(port) };
}

export type RunningApp = {
  origin: string;
  process: ChildProcess;
  /** Everything the server printed, stdout and stderr. */
  output: () => string;
  /** Resolves once the server prints a line matching `pattern` (or already has). */
  printed: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
  /** SIGTERM, and the exit code once it has exited. */
  stop: () => Promise<number | null>;
};

/** A free loopback port (released just before the app takes it), not handed out again by this process for a while. */
export const freePort = () => getPort({ host: "127.0.0.1" });

export type StartOptions = {
  /** Where the server is started from (the app's folder by default). */
  cwd?: string;
  /** The port to wait on when `env` chooses it itself (PORT unset or empty). */
  expectPort?: number;
  /** A limit on the size of any file the server writes (`ulimit -f`), standing in for a full disk. */
  fileSizeLimitKiB?: number;
  /** A file the server's output goes to instead of `output()` (under `fileSizeLimitKiB` too). */
  logFile?: string;
};

/**
 * Starts the built site with remix-serve, as `npm start` does, and waits for
 * /healthz; with REDIS_URL also for /readyz, as a load balancer waits before
 * it sends the instance visitors.
 */
export async function startApp(env: Record<string, string>, options: StartOptions = {}): Promise<RunningApp> {
  if (!existsSync(BUILD)) throw new Error("build/index.js is missing: run `npm run build` first");
  const port = options.expectPort ?? (await freePort());
  const { fileSizeLimitKiB = "unlimited", logFile } = options;
  const redirect = logFile ? ` > "${logFile}" 2>&1` : "";
  const [program, ...args] =
    fileSizeLimitKiB === "unlimited" && !logFile
      ? SERVE_COMMAND
      : ["bash", "-c", `ulimit -f ${fileSizeLimitKiB} && exec "$@"${redirect}`, "bash", ...SERVE_COMMAND];
  const child = spawn(program!, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...serveEnv(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const origin = `http://127.0.0.1:${port}`;

  try {
    const gaveUp = () => (child.exitCode !== null ? `app exited with ${child.exitCode}:` : null);
    await waitForOk(`${origin}/healthz`, { gaveUp });
    if (env.REDIS_URL) await waitForOk(`${origin}/readyz`, { gaveUp });
  } catch (error) {
    // A server left running would take later tests' queued jobs from the same Redis.
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n${output}`);
  }

  const printed = (pattern: RegExp, timeoutMs = 10_000) =>
    until(() => pattern.test(output), { what: `the server printing ${pattern}`, timeoutMs });

  return {
    origin,
    process: child,
    output: () => output,
    printed,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
