import { randomUUID } from "node:crypto";
import { readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { setImmediate } from "node:timers/promises";
import { logError, logEvent, reasonOf } from "~/server/log.server";

/** A page view the shipped nginx answered, as its access log tells it: the page's query, its Referer and Host. */
export type LoggedView = { query: string; referer: string; host: string };

/** nginx's log of one second's views: `<seconds since 1970>.log` (deploy/nginx.conf). */
const SECOND_FILE = /^(\d+)\.log$/;
/** A second's file is whole once every nginx worker's clock has left it: they read the time once per event loop. */
const SETTLED_SECONDS = 2;
/** A file an instance renamed to count it: `<second>.log.counting-<milliseconds since 1970 it was claimed>-<uuid>`. */
const CLAIMED_FILE = /^(\d+\.log)\.counting-(\d+)-[\da-f-]+$/;
/** An instance counts a file it claimed within milliseconds: one still there after this was left by one that died. */
const ABANDONED_AFTER_MS = 60_000;
const LOOK_EVERY_MS = 1_000;
/**
 * A busy second's file holds tens of thousands of views: counted in one go, each file of a backlog held every request
 * the instance was serving. They are served between batches of this many lines.
 */
const LINES_BETWEEN_YIELDS = 1_000;

/**
 * Counts the page views the shipped nginx logs into `folder`, which every instance shares (compose.yaml's
 * `page-views` volume): one file per second, one line `{"query":…,"referer":…,"host":…}` per view, the query holding
 * only the campaign. Once a second has passed, the first instance to rename its file counts it once it has deleted it,
 * so each view is counted once whichever instances are up, and a file whose instance died before deleting it is
 * claimed again. Lines of another shape are skipped.
 */
export function countLoggedViews(folder: string, viewed: (view: LoggedView) => void): void {
  let failing: string | null = null;
  const look = () =>
    countSettledViews(folder, viewed).then(
      () => {
        if (failing) logEvent("view-log-recovered", { folder });
        failing = null;
      },
      (error: unknown) => {
        // Once per kind of failure, not once a second: the page and everything else still work meanwhile.
        if (kindOf(error) !== failing) logError("view-log-error", error, { folder });
        failing = kindOf(error);
      },
    );
  const lookLater = () => setTimeout(() => void look().then(lookLater), LOOK_EVERY_MS).unref();
  lookLater();
}

/** A failure's kind, without the paths its message names: each look claims under a name of its own. */
function kindOf(error: unknown): string {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return code && syscall ? `${syscall} ${code}` : reasonOf(error);
}

/** Counts the files of the seconds that have passed, and those left claimed, which no other instance took first. */
export async function countSettledViews(folder: string, viewed: (view: LoggedView) => void, now = Date.now()) {
  const claim = `.counting-${now}-${randomUUID()}`;
  // Oldest first: a view is never counted before one nginx logged in an earlier second.
  for (const name of (await readdir(folder)).sort()) {
    const secondFile = dueSecondFile(name, now);
    if (!secondFile) continue;
    const claimed = join(folder, secondFile + claim);
    let lines: string;
    try {
      await rename(join(folder, name), claimed);
      lines = await readFile(claimed, "utf8");
      // Counted only once deleted: an instance whose claim another took over as abandoned counts none of it.
      await unlink(claimed);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // another instance took it first
      throw error;
    }
    for (const [index, line] of lines.split("\n").entries()) {
      if (index > 0 && index % LINES_BETWEEN_YIELDS === 0) await setImmediate();
      const view = loggedView(line);
      if (view) viewed(view);
    }
  }
}

/** The name of the second's file `name` holds, if it is due for counting: its second has passed, or it was abandoned. */
function dueSecondFile(name: string, now: number): string | null {
  const second = SECOND_FILE.exec(name)?.[1];
  if (second) return Number(second) <= Math.floor(now / 1000) - SETTLED_SECONDS ? name : null;
  const [, file, claimedAt] = CLAIMED_FILE.exec(name) ?? [];
  return file && Number(claimedAt) <= now - ABANDONED_AFTER_MS ? file : null;
}

function loggedView(line: string): LoggedView | null {
  try {
    const { query, referer, host } = JSON.parse(line) as Partial<LoggedView>;
    return typeof query === "string" && typeof referer === "string" && typeof host === "string"
      ? { query, referer, host }
      : null;
  } catch {
    return null;
  }
}
