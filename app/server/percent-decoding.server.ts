/** `decodeURIComponent`, or null where the text is no valid percent-encoding (a lone `%`, a broken UTF-8 sequence). */
export function percentDecoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** The decoded text, or the text as it stands where it is no valid percent-encoding. */
export const percentDecodedOrAsIs = (text: string) => percentDecoded(text) ?? text;
