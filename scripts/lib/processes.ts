import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { ROOT, startApp, type RunningApp } from "../../tests/harness/app-server";
import { WEBHOOK_PATH } from "../../tests/harness/stand-in";

/** The stand-in webhook in a child process, so the load generator does not share its event loop. */
export async function startStandInProcess(): Promise<{ origin: string; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", `${ROOT}tests/harness/stand-in-cli.ts`, "0"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const origin = await firstLine(child);
  return { origin, stop: () => child.kill("SIGTERM") };
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => resolve(line.trim()));
    child.once("exit", (code) => reject(new Error(`process exited with ${code} before printing`)));
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The SIGNUP_SECRET of the servers the scripts start: their visitors' bot-trap fields are signed with it. */
export const RIG_SECRET = "load-rig-secret-0123456789abcdef0123456";

/**
 * The built server relaying to a stand-in webhook in its own process, with the
 * relay ceiling out of the way: what the load figures measure.
 */
export async function startSignupRig(
  env: Record<string, string> = {},
): Promise<{ app: RunningApp; standInOrigin: string; stop: () => Promise<void> }> {
  const standIn = await startStandInProcess();
  const app = await startApp({
    WEBHOOK_URL: standIn.origin + WEBHOOK_PATH,
    SIGNUP_SECRET: RIG_SECRET,
    RELAY_LIMIT_PER_SECOND: "1000000",
    ...env,
  });
  return {
    app,
    standInOrigin: standIn.origin,
    stop: async () => {
      await app.stop();
      standIn.stop();
    },
  };
}
