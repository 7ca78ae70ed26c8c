import { percentDecoded } from "~/server/percent-decoding.server";

const MAX_BODY_BYTES = 16 * 1024;

export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Refuses oversized, non-UTF-8 or badly percent-encoded input rather than guess, and a `singleFields` field twice. */
export async function readUrlEncodedForm(request: Request, singleFields: readonly string[]): Promise<URLSearchParams> {
  const contentType = request.headers.get("content-type") ?? "";
  const [mediaType, ...params] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (mediaType !== "application/x-www-form-urlencoded")
    throw new BodyError(415, `unsupported content type "${mediaType ?? ""}"`);
  const charset = params.find((param) => param.startsWith("charset="))?.slice(8);
  if (charset && charset.replace(/"/g, "") !== "utf-8") throw new BodyError(415, `unsupported charset ${charset}`);

  const declaredLength = Number(request.headers.get("content-length") ?? "0");
  if (declaredLength > MAX_BODY_BYTES) throw new BodyError(413, "declared body too large");

  const text = await readUtf8(request, MAX_BODY_BYTES);
  // URLSearchParams guesses where the encoding is broken (a bad escape stays as sent, escaped bytes that are not
  // UTF-8 become U+FFFD): such a body is refused instead. Escapes never span a literal `&` or `=`, so the whole
  // body decodes exactly when each name and value does.
  if (percentDecoded(text) === null) throw new BodyError(400, "malformed percent-encoding");
  const form = new URLSearchParams(text);
  const repeated = singleFields.find((name) => form.getAll(name).length > 1);
  if (repeated) throw new BodyError(400, `field "${repeated}" repeated`);
  return form;
}

/** At most `limit` bytes, decoded strictly. */
async function readUtf8(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Stop reading, but do not cancel: cancelling destroys the socket before the 413 is written.
      reader.releaseLock();
      throw new BodyError(413, "body too large");
    }
    chunks.push(value);
  }
  try {
    return strictUtf8.decode(Buffer.concat(chunks));
  } catch {
    throw new BodyError(400, "body is not UTF-8");
  }
}
