import { logEvent } from "./log.server";

/**
 * How long a stop waits for sign-ups in flight: `docker stop` (and Kubernetes)
 * send SIGKILL 10 s after SIGTERM, and the last answers need a moment to flush.
 */
export const DRAIN_LIMIT_MS = 9_000;
/** What a stop needs after the last sign-up's answer is ready: writing it out. */
export const ANSWER_MARGIN_MS = 500;
/**
 * The longest one sign-up's outgoing calls may take in all: siteverify and the
 * webhook get at most what is left of it; the Redis commands after them (each
 * at most 250 ms) fit in ANSWER_MARGIN_MS, so a sign-up admitted before
 * SIGTERM is always answered before the drain ends.
 */
export const SIGNUP_TIME_BUDGET_MS = DRAIN_LIMIT_MS - ANSWER_MARGIN_MS;

/**
 * remix-serve closes its listener on SIGTERM but never exits on its own while
 * keep-alive sockets linger. We let the sign-ups in flight finish, then exit 0,
 * so `docker stop` never needs its SIGKILL and no accepted sign-up is cut off.
 */
let signupsInFlight = 0;
/** When the process will exit at the latest; null while it is not stopping. */
let stopDeadline: number | null = null;
/** Work a stop must also let finish (the queue's deliveries in flight). */
const stopTasks: Array<() => Promise<void>> = [];

/** Runs `task` when a stop begins; the process exits once it and the sign-ups are done, or at the drain's end. */
export function onStop(task: () => Promise<void>): void {
  stopTasks.push(task);
}

/**
 * Admits one sign-up, or refuses it (null) when a stop is under way and it
 * could not finish in time. Call the returned function when its answer is ready.
 */
export function admitSignup(now = Date.now()): (() => void) | null {
  if (stopDeadline !== null && now + SIGNUP_TIME_BUDGET_MS > stopDeadline) return null;
  signupsInFlight += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    signupsInFlight -= 1;
  };
}

/**
 * On SIGTERM or SIGINT: wait for the admitted sign-ups (at most DRAIN_LIMIT_MS),
 * then exit 0. A second signal changes nothing: left unheard, it would kill
 * the process mid-drain.
 */
export function drainOnStop(): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopDeadline !== null) return;
      logEvent("shutdown", { signal, signupsInFlight });
      const deadline = Date.now() + DRAIN_LIMIT_MS;
      stopDeadline = deadline;
      let tasksDone = false;
      void Promise.allSettled(stopTasks.map((task) => task())).then(() => (tasksDone = true));
      const check = setInterval(() => {
        if ((signupsInFlight > 0 || !tasksDone) && Date.now() < deadline) return;
        clearInterval(check);
        // A short grace lets the last responses flush to their sockets.
        setTimeout(() => process.exit(0), 50);
      }, 25);
    });
  }
}
