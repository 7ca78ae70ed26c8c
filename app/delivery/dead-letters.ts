// The ops command for dead-lettered sign-ups (README, "Queued delivery"), built to build/dead-letters.js for
// the image, which has no npm. It reads REDIS_URL and SIGNUP_SOURCE from the server's environment.
import { Redis } from "ioredis";
import { reasonOf } from "~/server/log.server";
import { ConfigError, parseSettings } from "~/server/settings.server";
import { DeliveryQueue } from "./queue.server";

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
  const queue = new DeliveryQueue(redis, settings.SIGNUP_SOURCE);
  try {
    const letters = await queue.deadLetters();
    if (command === "list") {
      if (letters.length === 0) console.log("no dead-lettered sign-ups");
      for (const job of letters) {
        const failedAt = new Date(job.finishedOn ?? job.timestamp).toISOString();
        console.log(
          [job.id, failedAt, `${job.attemptsMade} attempts`, job.failedReason, job.data.submission.email].join("  "),
        );
      }
      return 0;
    }
    const ids = target === "--all" ? letters.map((job) => job.id!) : [target!];
    let done = 0;
    for (const id of ids) {
      if (await queue.resolveDeadLetter(id, command)) done += 1;
      else console.error(`no dead-lettered sign-up ${id}`);
    }
    console.log(`${command === "retry" ? "re-queued" : "dropped"} ${done} of ${ids.length}`);
    return done === ids.length ? 0 : 1;
  } finally {
    await queue.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = reasonOf(error);
    console.error(message === "Command timed out" ? `Redis did not answer within ${TIMEOUT_MS / 1000} s` : message);
    process.exit(1);
  },
);
