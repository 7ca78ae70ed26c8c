import { APP_ROOT } from "./app-files.server";
import { drainOnStop } from "./graceful-stop.server";
import { logError } from "./log.server";

const INSTALLED = Symbol.for("landing.processGuards");

/** Runs `install` once per process: the dev server re-imports the build. */
export function oncePerProcess(install: () => void): void {
  const registry = globalThis as typeof globalThis & { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return;
  registry[INSTALLED] = true;
  install();
}

/** What the process needs whoever started it, and its last line of defence (docs/decisions/005-…). */
export function guardProcess(): void {
  process.chdir(APP_ROOT);
  // A log that can no longer be written (reader gone, disk full) must cost log lines, never the server:
  // unheard, each failed write is an uncaught error whose logging fails again.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  process.on("uncaughtException", (error) => logError("unexpected-error", error, { kind: "uncaught-exception" }));
  process.on("unhandledRejection", (reason) => logError("unexpected-error", reason, { kind: "unhandled-rejection" }));
  drainOnStop();
}
