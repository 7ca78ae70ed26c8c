// The ops command for dead-lettered sign-ups (docs/delivery.md), built to build/dead-letters.js for the image, which
// has no npm. It reads REDIS_URL and SIGNUP_SOURCE from the server's environment. Every line it prints is English.
import { Redis } from "ioredis";
import { reasonOf } from "~/server/log.server";
import { ConfigError, parseSettings } from "~/server/settings.server";
import { DeliveryQueue, type Resolution } from "./queue.server";

const USAGE = "usage: node build/dead-letters.js list | retry <id>|--all | drop <id>|--all";
/** For Redis to connect, or to answer one command. */
const TIMEOUT_MS = 3_000;

async function main(args: string[]): Promise<number> {
  const [command, target] = args;
  if (command !== "list" && !((command === "retry" || command === "drop") && target)) {
    console.error(USAGE);
    return 2;
  }
  const settings = parseSettings(process.env);
  if (!settings.REDIS_URL) throw new ConfigError("REDIS_URL is not set: there is no queue to read");
  // One try to connect, and no command waited on for ever: an unreachable or frozen Redis is reported.
  const redis = new Redis(settings.REDIS_URL, {
    connectTimeout: TIMEOUT_MS,
    commandTimeout: TIMEOUT_MS,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined); // the failed command says why
  try {
    // Asked first and alone: a Redis that does not answer is told within TIMEOUT_MS, not after each of the queue's
    // own first commands has timed out in turn.
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const queue = new DeliveryQueue(redis, settings.SIGNUP_SOURCE);
  try {
    const letters = await queue.deadLetters();
    if (command === "list") {
      if (letters.length === 0) console.log("no dead-lettered sign-ups");
      for (const job of letters) {
        const failedAt = new Date(job.finishedOn ?? job.timestamp);
        console.log(
          [
            job.id,
            Number.isNaN(failedAt.getTime()) ? "unknown-time" : failedAt.toISOString(),
            `${job.attemptsMade} attempts`,
            job.failedReason,
            // A job Redis emptied (an evicting maxmemory-policy) has no sign-up left to show.
            job.data.submission?.email ?? "(sign-up lost)",
          ].join("  "),
        );
      }
      return 0;
    }
    const all = target === "--all";
    const ids = all ? letters.map((job) => job.id!) : [target!];
    const counts = new Map<string, number>();
    let failed = false;
    for (const id of ids) {
      const { said, ok } = sayResolution(await queue.resolveDeadLetter(id, command), command, all);
      if (ok) counts.set(said, (counts.get(said) ?? 0) + 1);
      else {
        console.error(`${said}: ${id}`);
        failed = true;
      }
    }
    const done = command === "retry" ? "re-queued" : "dropped";
    const others = [...counts].filter(([what]) => what !== done).map(([what, count]) => `${count} ${what}`);
    console.log(`${done} ${counts.get(done) ?? 0} of ${ids.length}${others.length ? ` (${others.join(", ")})` : ""}`);
    return failed ? 1 : 0;
  } finally {
    await queue.close();
  }
}

/**
 * What ops read of a resolution. Another run's work is no error: a job it re-queued or dropped meanwhile (with
 * --all, a job gone from the list was dropped by it). An id that names no dead letter is.
 */
function sayResolution(resolution: Resolution, command: "retry" | "drop", all: boolean) {
  if (resolution === "gone") return all ? { said: "already dropped", ok: true } : { said: "no dead-lettered sign-up" };
  if (command === "drop" && resolution.startsWith("already")) return { said: `not a dead letter (${resolution})` };
  return { said: resolution, ok: true };
}

/** Redis's failures as one line for ops, never a library's raw message. */
function problemOf(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  const message = reasonOf(error);
  if (message === "Command timed out") return `Redis did not answer within ${TIMEOUT_MS / 1000} s`;
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|Connection is closed|connect ETIMEDOUT/.test(message))
    return "Redis (REDIS_URL) cannot be reached";
  return `Redis refused the command; nothing more was changed (${message.split("\n")[0]})`;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(problemOf(error));
    process.exit(1);
  },
);
