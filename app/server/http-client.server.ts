import { fetch } from "undici";

export type HttpAnswer = {
  status: number;
  statusText: string;
  ok: boolean;
  text: string;
  cut: boolean;
  /** The answer's Retry-After header, as sent. */
  retryAfter: string | null;
};

/**
 * POSTs through undici, Node's own HTTP client, and never through the global
 * `fetch`: remix-serve replaces that with a polyfill whose abort path throws
 * outside any promise on a timeout and ends the process. One deadline covers
 * connecting, the answer and its body; at most `maxBodyBytes` of the body are
 * read, so a huge answer costs no more than a small one.
 */
export async function postWithDeadline(
  url: string,
  request: {
    contentType: string;
    body: string;
    timeoutMs: number;
    maxBodyBytes: number;
    headers?: Record<string, string>;
  },
): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...request.headers, "content-type": request.contentType },
    body: request.body,
    redirect: "manual",
    signal: AbortSignal.timeout(request.timeoutMs),
  });
  const { text, cut } = await readSomeText(response.body as ReadableStream<Uint8Array> | null, request.maxBodyBytes);
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    text,
    cut,
    retryAfter: response.headers.get("retry-after"),
  };
}

async function readSomeText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ text: string; cut: boolean }> {
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
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** A short cause for the log, never the URL (it may hold a secret path). */
export function failureReason(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError") return "timeout";
    const cause = (error as Error & { cause?: { code?: unknown } }).cause;
    if (cause && typeof cause.code === "string") return cause.code;
    return error.name;
  }
  return "unknown";
}
