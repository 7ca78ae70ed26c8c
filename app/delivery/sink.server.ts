import { closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { open, statfs, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigError } from "~/server/settings.server";
import type { DeliveryResult, Relay, Submission } from "./submission";

/** Below this much free space the next lines may not fit: unhealthy. */
const MIN_FREE_BYTES = 64 * 1024;
/** A health-check flood costs one probe of the disk a second. */
const HEALTH_CACHE_MS = 1_000;
const FILE_MODE = 0o640;
/** Unhealthy this long after a failed write, or until a line is written: a quota or an I/O error shows only then. */
const FAILED_WRITE_MEMORY_MS = 30_000;

/** One whole JSON line per sign-up, fsync'ed before its 200, the path opened per line (docs/decisions/002-…). */
export class SignupSink {
  private queue: Promise<unknown> = Promise.resolve();
  private health: { healthy: boolean; checkedAt: number } | null = null;
  private lastFailedWriteAt: number | null = null;

  constructor(private readonly path: string) {
    let notAFile = false;
    try {
      mkdirSync(dirname(path), { recursive: true });
      // A device takes every line and keeps none (/dev/null: then every fsync fails), and opening a named pipe waits
      // for a reader: only a file keeps sign-ups. A folder is refused by the open.
      const existing = statSync(path, { throwIfNoEntry: false });
      notAFile = existing !== undefined && !existing.isFile() && !existing.isDirectory();
      if (!notAFile) closeSync(openSync(path, "a", FILE_MODE));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      throw new ConfigError(`Invalid configuration: SIGNUPS_FILE cannot be opened for appending (${code}: ${path})`);
    }
    if (notAFile) {
      throw new ConfigError(
        `Invalid configuration: SIGNUPS_FILE is not a regular file (${path}); name a file on a disk or volume`,
      );
    }
  }

  readonly append: Relay = (submission) => {
    const write = this.queue.then(() => this.appendLine(submission));
    this.queue = write;
    return write;
  };

  async healthy(now = Date.now()): Promise<boolean> {
    if (this.lastFailedWriteAt !== null && now - this.lastFailedWriteAt < FAILED_WRITE_MEMORY_MS) return false;
    if (this.health && now - this.health.checkedAt < HEALTH_CACHE_MS) return this.health.healthy;
    const healthy = await open(this.path, "a", FILE_MODE)
      .then((handle) => handle.close())
      .then(() => statfs(dirname(this.path)))
      .then((disk) => disk.bavail * disk.bsize >= MIN_FREE_BYTES)
      .catch(() => false);
    this.health = { healthy, checkedAt: now };
    return healthy;
  }

  private async appendLine(submission: Submission): Promise<DeliveryResult> {
    const line = Buffer.from(`${JSON.stringify(submission)}\n`, "utf8");
    let handle: FileHandle | undefined;
    let sizeBefore: number | undefined;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      handle = await open(this.path, "a", FILE_MODE);
      sizeBefore = (await handle.stat().catch(() => null))?.size;
      if (sizeBefore === undefined) throw Object.assign(new Error("cannot stat"), { code: "EIO" });
      for (let offset = 0; offset < line.length;) {
        const { bytesWritten } = await handle.write(line, offset, line.length - offset);
        if (bytesWritten === 0) throw Object.assign(new Error("nothing written"), { code: "ENOSPC" });
        offset += bytesWritten;
      }
      await handle.sync();
      if (this.lastFailedWriteAt !== null) {
        this.lastFailedWriteAt = null;
        this.health = null;
      }
      return { kind: "delivered" };
    } catch (error) {
      // No partial line may stay behind for the next one to be glued onto.
      if (sizeBefore !== undefined) await handle?.truncate(sizeBefore).catch(() => {});
      return this.failure(error);
    } finally {
      await handle?.close().catch(() => {});
    }
  }

  private failure(error: unknown): DeliveryResult {
    this.health = null;
    this.lastFailedWriteAt = Date.now();
    return { kind: "sink", reason: (error as NodeJS.ErrnoException).code ?? "error" };
  }
}
