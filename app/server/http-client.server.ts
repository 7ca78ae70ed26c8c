import { fetch } from "undici";

/** Through undici, never remix-serve's global `fetch`, which can end the process on a timeout (decision 005). */
export async function postWithDeadline(
  url: string,
  request: {
    contentType: string;
    body: string;
    timeoutMs: number;
    maxBodyBytes: number;
    headers?: Record<string, string>;
  },
) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...request.headers, "content-type": request.contentType },
    body: request.body,
    redirect: "manual",
    signal: AbortSignal.timeout(request.timeoutMs),
  });
  const { text, cut } = await readSomeText(response.body as ReadableStream<Uint8Array> | null, request.maxBodyBytes);
  const { status, statusText, ok } = response;
  return { status, statusText, ok, text, cut, retryAfter: response.headers.get("retry-after") };
}

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
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** A short cause for the log, never the URL (it may hold a secret path). */
export function failureReason(error: unknown): string {
  if (!(error instanceof Error)) return "unknown";
  if (error.name === "TimeoutError" || error.name === "AbortError") return "timeout";
  const cause = (error as Error & { cause?: { code?: unknown } }).cause;
  return cause && typeof cause.code === "string" ? cause.code : error.name;
}
