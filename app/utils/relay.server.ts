import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { failureReason, postWithDeadline } from "./http-client.server";
import { publicErrorText } from "./webhook-error-text.server";

/** The JSON body the automation receives, exactly these five fields. */
export type Submission = {
  email: string;
  hcaptchaToken: string;
  source: string;
  ts: string;
  userAgent: string;
};

export type RelayOutcome =
  | { ok: true }
  /** The webhook answered, but not with 2xx. */
  | { ok: false; kind: "status"; status: number; statusText: string; text: string }
  /** No answer: refused, reset, timed out, or the local file could not be written. */
  | { ok: false; kind: "unreachable"; reason: string };

export type Relay = (submission: Submission) => Promise<RelayOutcome>;

/** Enough of an error answer to show its message; the rest is never downloaded. */
const ERROR_BODY_BYTES = 4096;

/** POSTs the submission as JSON; the URL never leaves this closure, nor reaches the visitor. */
export function webhookRelay(url: string, timeoutMs: number): Relay {
  return async (submission) => {
    try {
      const answer = await postWithDeadline(url, {
        contentType: "application/json",
        body: JSON.stringify(submission),
        timeoutMs,
        maxBodyBytes: ERROR_BODY_BYTES,
      });
      if (answer.ok) return { ok: true };
      return {
        ok: false,
        kind: "status",
        status: answer.status,
        statusText: publicErrorText(answer.statusText, url),
        text: publicErrorText(answer.text, url, answer.cut),
      };
    } catch (error) {
      return { ok: false, kind: "unreachable", reason: failureReason(error) };
    }
  };
}

/**
 * The embedded default when no webhook is configured: one JSON line per
 * sign-up, appended and fsync'ed before success is reported, so an
 * acknowledged sign-up survives a crash. Writes are serialised.
 */
export function fileRelay(path: string): Relay {
  let file: Promise<FileHandle> | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const openFile = async () => {
    await mkdir(dirname(path), { recursive: true });
    return open(path, "a", 0o640);
  };

  return (submission) => {
    const write = queue.then(async (): Promise<RelayOutcome> => {
      try {
        file ??= openFile();
        const handle = await file;
        await handle.write(`${JSON.stringify(submission)}\n`);
        await handle.sync();
        return { ok: true };
      } catch (error) {
        file = null;
        return { ok: false, kind: "unreachable", reason: failureReason(error) };
      }
    });
    queue = write;
    return write;
  };
}
