import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";

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

/** The most of a webhook's error text a visitor is shown. */
const WEBHOOK_TEXT_LIMIT = 300;

/** POSTs the submission as JSON; the URL never leaves this closure. */
export function webhookRelay(url: string, timeoutMs: number): Relay {
  return async (submission) => {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(submission),
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.ok) {
        await response.body?.cancel();
        return { ok: true };
      }
      return {
        ok: false,
        kind: "status",
        status: response.status,
        statusText: response.statusText,
        text: await readSomeText(response, WEBHOOK_TEXT_LIMIT),
      };
    } catch (error) {
      return { ok: false, kind: "unreachable", reason: failureReason(error) };
    }
  };
}

/**
 * Reads at most `limit` characters of a body (a 10 MB error page is not
 * downloaded) and flattens it to one printable line.
 */
async function readSomeText(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < limit * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body cut short still tells what arrived.
  } finally {
    reader.cancel().catch(() => {});
  }
  const flat = text.replace(/[\u0000-\u001f\u007f\s]+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** A short cause for the log, never the URL (it may hold a secret path). */
function failureReason(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError") return "timeout";
    const cause = (error as Error & { cause?: { code?: unknown } }).cause;
    if (cause && typeof cause.code === "string") return cause.code;
    return error.name;
  }
  return "unknown";
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
