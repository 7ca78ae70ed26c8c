import isPortReachable from "is-port-reachable";

const POLL_MS = 25;

/**
 * Resolves once `check()` holds, looking again every few milliseconds, or
 * rejects after `timeoutMs` naming `what` was awaited (or as soon as
 * `gaveUp()` names a reason, e.g. the process under test exited). The one
 * polling helper: for state only another process can show (a port, a
 * probe, a Redis key); in-process events are awaited directly.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  {
    what,
    timeoutMs = 10_000,
    intervalMs = POLL_MS,
    gaveUp = (): string | null => null,
  }: { what: string; timeoutMs?: number; intervalMs?: number; gaveUp?: () => string | null },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reason = gaveUp();
    if (reason) throw new Error(reason);
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Whether `url` answers with `status` now. */
export async function answers(url: string, status = 200): Promise<boolean> {
  try {
    return (await fetch(url)).status === status;
  } catch {
    return false; // not listening (yet, or any more)
  }
}

/** Resolves once `url` answers 200. Patient: a start on a loaded machine has taken over 15 s; one that fails says so. */
export function waitForOk(url: string, options: { timeoutMs?: number; gaveUp?: () => string | null } = {}) {
  return until(() => answers(url), { what: `${url} answering 200`, timeoutMs: 30_000, ...options });
}

/** Resolves once something accepts TCP connections on the loopback port. */
export function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const accepts = () => isPortReachable(port, { host: "127.0.0.1" });
  return until(accepts, { what: `a listener on 127.0.0.1:${port}`, timeoutMs });
}
