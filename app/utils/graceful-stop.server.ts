import { logEvent } from "./log.server";

/**
 * How long a stop waits for sign-ups in flight: `docker stop` (and Kubernetes)
 * send SIGKILL 10 s after SIGTERM, and the last answers need a moment to flush.
 */
export const DRAIN_LIMIT_MS = 9_000;
/** What is left of the drain for a sign-up's outgoing calls once the answer's own margin is kept. */
export const SIGNUP_TIME_BUDGET_MS = DRAIN_LIMIT_MS - 500;

/**
 * remix-serve closes its listener on SIGTERM but never exits on its own while
 * keep-alive sockets linger. We let the sign-ups in flight finish, then exit 0,
 * so `docker stop` never needs its SIGKILL and no accepted sign-up is cut off.
 */
let signupsInFlight = 0;
/** When the process will exit at the latest; null while it is not stopping. */
let stopDeadline: number | null = null;

/**
 * Admits one sign-up that may take up to `budgetMs`, or refuses it (null) when
 * a stop is under way and it could not finish in time. Call the returned
 * function when its answer is ready.
 */
export function admitSignup(budgetMs: number, now = Date.now()): (() => void) | null {
  if (stopDeadline !== null && now + budgetMs > stopDeadline) return null;
  signupsInFlight += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    signupsInFlight -= 1;
  };
}

const INSTALLED = Symbol.for("landing.gracefulStop");

export function installGracefulStop(limitMs = DRAIN_LIMIT_MS): void {
  const registry = globalThis as typeof globalThis & { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return; // the dev server re-imports the build
  registry[INSTALLED] = true;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logEvent("shutdown", { signal, signupsInFlight });
      stopDeadline = Date.now() + limitMs;
      const check = setInterval(() => {
        if (signupsInFlight > 0 && Date.now() < stopDeadline!) return;
        clearInterval(check);
        // A short grace lets the last responses flush to their sockets.
        setTimeout(() => process.exit(0), 50);
      }, 25);
    });
  }
}
