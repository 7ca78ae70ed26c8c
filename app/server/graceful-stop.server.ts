import { logEvent } from "./log.server";

// remix-serve never exits on SIGTERM while keep-alive sockets linger: the sign-ups in flight are drained, then
// the process exits 0 before `docker stop`'s SIGKILL 10 s later (docs/decisions/003-drain-budget.md).
export const DRAIN_LIMIT_MS = 9_000;
/** For the last answers to flush. */
export const ANSWER_MARGIN_MS = 500;
/** For one sign-up's outgoing calls in all; Redis answers the records after them in milliseconds (decision 003). */
export const SIGNUP_TIME_BUDGET_MS = DRAIN_LIMIT_MS - ANSWER_MARGIN_MS;

let signupsInFlight = 0;
/** When the process will exit at the latest; null while it is not stopping. */
let stopDeadline: number | null = null;
const stopTasks: Array<() => Promise<void>> = [];

/** Work a stop also lets finish (the queue's deliveries in flight), within the drain. */
export function onStop(task: () => Promise<void>): void {
  stopTasks.push(task);
}

/** Null when a stop is under way and this sign-up could not finish in time; else call the result once answered. */
export function admitSignup(): (() => void) | null {
  if (stopDeadline !== null && Date.now() + SIGNUP_TIME_BUDGET_MS > stopDeadline) return null;
  signupsInFlight += 1;
  let released = false;
  return () => {
    if (!released) signupsInFlight -= 1;
    released = true;
  };
}

/** On SIGTERM or SIGINT. A second signal changes nothing: left unheard, it would kill the process mid-drain. */
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
