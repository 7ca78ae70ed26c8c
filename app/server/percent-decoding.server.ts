/** `decodeURIComponent`, or null where the text is no valid percent-encoding (a lone `%`, a broken UTF-8 sequence). */
export function percentDecoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
