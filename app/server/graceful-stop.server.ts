import type { IncomingMessage, ServerResponse } from "node:http";
import { logEvent } from "./log.server";

// remix-serve never exits on SIGTERM while keep-alive sockets linger: the sign-ups in flight are drained, then
// the process exits 0 before `docker stop`'s SIGKILL 10 s later (docs/decisions/003-drain-budget.md; the figures:
// docs/signup.md, "Limits").
export const DRAIN_LIMIT_MS = 9_000;
/** For the last answers to flush. */
const ANSWER_MARGIN_MS = 500;
/** For one sign-up's outgoing calls in all; Redis answers the records after them in milliseconds (decision 003). */
export const SIGNUP_TIME_BUDGET_MS = DRAIN_LIMIT_MS - ANSWER_MARGIN_MS;

// Counted here, not left to `server.close`: its callback also waits for idle keep-alive sockets and for uploads
// still arriving, which a stop owes nothing since they were never admitted.
/** Sign-up posts whose body has arrived and whose answer has not yet left. */
let signupsInFlight = 0;
/** When the process will exit at the latest; null while it is not stopping. */
let stopDeadline: number | null = null;
/** Set while a stop waits for the sign-ups in flight. */
let lastSignupAnswered: (() => void) | null = null;
const stopTasks: Array<() => Promise<void>> = [];

/** Work a stop also lets finish (the queue's deliveries in flight), within the drain. */
export function onStop(task: () => Promise<void>): void {
  stopTasks.push(task);
}

/**
 * For each sign-up post, from the server guard: the stop waits for it from the moment its body has arrived until its
 * answer has left the process. The answer is written after the action returns (for a post without JavaScript, a whole
 * page render), so the action's own end is too early to exit on.
 */
export function answerBeforeExit(request: IncomingMessage, response: ServerResponse): void {
  let answered = false;
  response.once("close", () => (answered = true));
  request.once("end", () => {
    if (answered) return;
    signupsInFlight += 1;
    response.once("close", () => {
      signupsInFlight -= 1;
      if (signupsInFlight === 0) lastSignupAnswered?.();
    });
  });
}

/** False once a stop is under way and a sign-up admitted now could not finish before the exit. */
export function canAdmitSignup(): boolean {
  return stopDeadline === null || Date.now() + SIGNUP_TIME_BUDGET_MS <= stopDeadline;
}

function signupsAnswered(): Promise<void> {
  if (signupsInFlight === 0) return Promise.resolve();
  return new Promise((resolve) => (lastSignupAnswered = resolve));
}

/** On SIGTERM or SIGINT. A second signal changes nothing: left unheard, it would kill the process mid-drain. */
export function drainOnStop(): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopDeadline !== null) return;
      logEvent("shutdown", { signal, signupsInFlight });
      stopDeadline = Date.now() + DRAIN_LIMIT_MS;
      const exit = () => process.exit(0);
      setTimeout(exit, DRAIN_LIMIT_MS);
      void Promise.allSettled([signupsAnswered(), ...stopTasks.map((task) => task())]).then(() => {
        // Drained: what arrives now could not be answered before the exit.
        stopDeadline = Date.now();
        exit();
      });
    });
  }
}
