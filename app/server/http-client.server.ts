import { fetch } from "undici";

/** A success's body is not needed: it is read and thrown away for at most this long, so its connection can be kept. */
const SUCCESS_BODY_DRAIN_MS = 1_000;

/**
 * Through undici, never remix-serve's global `fetch`, which can end the process on a timeout (decision 005). The
 * timeout bounds the call until its status line, and the reading of the body when the caller needs it. With
 * `successBody: "drain"` a 2xx is answered as soon as its status line arrives: a slow, cut or garbled body after it
 * changes nothing. No compression is asked for: an answer labelled gzip that is not gzip cannot break the reading.
 */
export async function postWithDeadline(
  url: string,
  request: {
    contentType: string;
    body: string;
    timeoutMs: number;
    maxBodyBytes: number;
    headers?: Record<string, string>;
    /** Ends the call early (a stop under way), besides the timeout. */
    signal?: AbortSignal;
    successBody?: "read" | "drain";
  },
) {
  // A budget already spent is a timeout at once (a negative delay would throw a RangeError instead).
  const timeout = AbortSignal.timeout(Math.max(0, request.timeoutMs));
  const response = await fetch(url, {
    method: "POST",
    headers: { ...request.headers, "content-type": request.contentType, "accept-encoding": "identity" },
    body: request.body,
    redirect: "manual",
    signal: request.signal ? AbortSignal.any([timeout, request.signal]) : timeout,
  });
  const body = response.body as ReadableStream<Uint8Array> | null;
  const { status, statusText, ok } = response;
  const retryAfter = response.headers.get("retry-after");
  if (ok && request.successBody === "drain") {
    void drain(body);
    return { status, statusText, ok, text: "", cut: false, retryAfter };
  }
  const { text, cut } = await readSomeText(body, request.maxBodyBytes);
  return { status, statusText, ok, text, cut, retryAfter };
}

/** What arrived of the body, up to `maxBytes`; `cut` when more was left or the body broke off (or timed out). */
async function readSomeText(body: ReadableStream<Uint8Array> | null, maxBytes: number) {
  if (!body) return { text: "", cut: false };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode(), cut: false };
      const piece = value.subarray(0, maxBytes - bytes);
      bytes += piece.length;
      text += decoder.decode(piece, { stream: true });
    }
    return { text, cut: true };
  } catch {
    // The status already says what happened; a body that broke off only shortens the text.
    return { text: text + decoder.decode(), cut: true };
  } finally {
    reader.cancel().catch(() => {});
  }
}

async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  const timer = setTimeout(() => reader.cancel().catch(() => {}), SUCCESS_BODY_DRAIN_MS);
  try {
    while (!(await reader.read()).done);
  } catch {
    // Cut, garbled or cancelled: the call already succeeded.
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/** A short cause for the log, never the URL (it may hold a secret path). */
export function failureReason(error: unknown): string {
  if (!(error instanceof Error)) return "unknown";
  if (error.name === "TimeoutError") return "timeout";
  // Only a stop aborts a call (`signal`); timeouts are TimeoutErrors.
  if (error.name === "AbortError") return "stopping";
  const cause = (error as Error & { cause?: { code?: unknown } }).cause;
  return cause && typeof cause.code === "string" ? cause.code : error.name;
}
