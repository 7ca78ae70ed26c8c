import { logEvent } from "./log.server";

/**
 * remix-serve closes its listener on SIGTERM but never exits on its own while
 * keep-alive sockets linger. We let the sign-ups in flight finish (bounded),
 * then exit 0, so `docker stop` never needs its SIGKILL and no acknowledged
 * sign-up is cut off.
 */
let signupsInFlight = 0;

export async function trackSignup<T>(work: () => Promise<T>): Promise<T> {
  signupsInFlight += 1;
  try {
    return await work();
  } finally {
    signupsInFlight -= 1;
  }
}

const INSTALLED = Symbol.for("landing.gracefulStop");

export function installGracefulStop(limitMs = 9_000): void {
  const registry = globalThis as typeof globalThis & { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return; // the dev server re-imports the build
  registry[INSTALLED] = true;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logEvent("shutdown", { signal, signupsInFlight });
      const deadline = Date.now() + limitMs;
      const check = setInterval(() => {
        if (signupsInFlight > 0 && Date.now() < deadline) return;
        clearInterval(check);
        // A short grace lets the last responses flush to their sockets.
        setTimeout(() => process.exit(0), 50);
      }, 25);
    });
  }
}
