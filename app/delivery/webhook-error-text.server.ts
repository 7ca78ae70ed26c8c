import { percentDecoded } from "~/server/percent-decoding.server";
import { basicCredentials } from "./webhook.server";

const SHOWN_TEXT_LIMIT = 200;
const HIDDEN = "[…]";

/** One short line a visitor may read: no URL, nor any part of the webhook's (n8n's 404 names its secret path). */
export function publicErrorText(body: string, webhookUrl: string, cut = false): string {
  let text = cut ? body.replace(/\s\S*$/, "") : body;
  // Invisible format characters (a soft hyphen, a zero-width space) could split a secret apart.
  text = decodeEscapes(jsonMessage(text) ?? htmlText(text) ?? text).replace(/\p{Cf}/gu, "");
  text = text.replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, HIDDEN);
  for (const secret of secretsOf(webhookUrl)) text = hide(text, secret);
  text = text
    .replace(/[<>\p{C}\s]+/gu, " ")
    .replace(/\[…\](?:\s*[/?&=#:.]*\s*\[…\])+/g, HIDDEN)
    .trim();
  return text.length > SHOWN_TEXT_LIMIT ? `${text.slice(0, SHOWN_TEXT_LIMIT - 1)}…` : text;
}

/** Written out before anything is looked for, so an escaped URL cannot slip through (a cut body is no JSON). */
function decodeEscapes(text: string): string {
  return text
    .replace(/\\\//g, "/")
    .replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/&#(x[0-9a-f]{1,6}|\d{1,7});/gi, (reference, code: string) => {
      const point = Number(code.replace(/^x/i, "0x"));
      return point <= 0x10ffff ? String.fromCodePoint(point) : reference;
    })
    .replace(/(?:%[0-9a-f]{2})+/gi, safeDecode);
}

/** `{"message": "…"}` and the like: what the automation meant to say. */
function jsonMessage(text: string): string | null {
  try {
    const value = JSON.parse(text) as Record<string, { message?: unknown } | null> | null;
    for (const field of ["message", "error", "detail", "title"].map((key) => value?.[key])) {
      for (const message of [field, field?.message]) if (typeof message === "string") return message;
    }
  } catch {
    // Not JSON: an HTML page or plain text.
  }
  return null;
}

const HTML_ENTITIES: Record<string, string> = { nbsp: " ", lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" };

/** An HTML error page (nginx's 502, a proxy's 503) read as its title or its text. */
function htmlText(text: string): string | null {
  if (!/<[a-z!/][^>]*>/i.test(text)) return null;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  const visible = (title ?? text.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")).replace(/<[^>]*>/g, " ");
  return visible.replace(/&(nbsp|lt|gt|quot|#39|amp);/g, (_, name: string) => HTML_ENTITIES[name]!);
}

/** How a secret is looked for: exactly, as a whole word, or `loose` (see `hide`). */
type Secret = [text: string, match: "anywhere" | "word" | "loose"];

/** A URL part at least this long is hidden wherever it stands, whatever separates its words. */
const LOOSE_MIN_LENGTH = 8;

/** Every spelling of the URL and its parts, longest first; parts as words: a segment "hook" leaves "Webhook" alone. */
function secretsOf(webhookUrl: string): Secret[] {
  if (!URL.canParse(webhookUrl)) return [];
  const url = new URL(webhookUrl);
  const withoutCredentials = new URL(url);
  withoutCredentials.username = withoutCredentials.password = "";
  const anywhere = [
    url.href,
    withoutCredentials.href,
    url.origin,
    url.host,
    url.hostname,
    url.pathname,
    url.pathname.replace(/^\/+/, ""),
    url.search,
    url.search.slice(1),
    basicCredentials(url),
  ];
  const words = [
    ...url.pathname.split("/"),
    ...[...url.searchParams].flat(),
    ...url.search.slice(1).split("&"),
    url.username,
    url.password,
    url.port,
  ];
  const secrets = new Map<string, Secret[1]>();
  const parts = [...words.map((part) => [part, true] as const), ...anywhere.map((part) => [part, false] as const)];
  for (const [part, asWords] of parts) {
    if (!part || part === "/") continue;
    const decoded = safeDecode(part);
    const match =
      !asWords && /[/?&=:.@]/.test(decoded) ? "anywhere" : decoded.length >= LOOSE_MIN_LENGTH ? "loose" : "word";
    for (const spelling of [part, decoded, encodeURIComponent(decoded), encodeURI(decoded)]) {
      secrets.set(spelling, match);
    }
  }
  return [...secrets].sort(([a], [b]) => b.length - a.length);
}

const safeDecode = (text: string) => percentDecoded(text) ?? text;

function hide(text: string, [secret, match]: Secret): string {
  const escape = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern =
    match === "anywhere"
      ? escape(secret)
      : match === "word"
        ? `(?<![\\p{L}\\p{N}])${escape(secret)}(?![\\p{L}\\p{N}])`
        : // Its letters and digits in order, whatever stands between their runs: "c0ffee secret_path".
          (secret.match(/[\p{L}\p{N}]+/gu) ?? [escape(secret)]).map(escape).join("[^\\p{L}\\p{N}]*");
  return text.replace(new RegExp(pattern, "giu"), HIDDEN);
}
