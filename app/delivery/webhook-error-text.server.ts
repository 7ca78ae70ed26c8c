import { decodeHTML } from "entities";
import { domainToUnicode } from "node:url";
import { percentDecoded, percentDecodedOrAsIs } from "~/server/percent-decoding.server";
import { basicCredentials } from "./webhook.server";

const SHOWN_TEXT_LIMIT = 200;
const HIDDEN = "[…]";

/**
 * One short line a visitor may read: no URL, nor any part of the webhook's (n8n's 404 names its secret path).
 * "" when a part could not be hidden: the visitor then reads the status alone.
 */
export function publicErrorText(body: string, webhookUrl: string, cut = false): string {
  let text = cut ? body.replace(/\s\S*$/, "") : body;
  // Invisible format characters (a soft hyphen, a zero-width space) could split a secret apart.
  text = decodeEscapes(jsonMessage(text) ?? htmlText(text) ?? text).replace(/\p{Cf}/gu, "");
  text = text.replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, HIDDEN);
  const secrets = secretsOf(webhookUrl);
  for (const secret of secrets) text = hide(text, secret);
  text = text
    .replace(/[<>\p{C}\s]+/gu, " ")
    .replace(/\[…\](?:\s*[/?&=#:.]*\s*\[…\])+/g, HIDDEN)
    .trim();
  if (showsSecret(text, secrets)) return "";
  return text.length > SHOWN_TEXT_LIMIT ? `${text.slice(0, SHOWN_TEXT_LIMIT - 1)}…` : text;
}

/** The last net, for a spelling nobody foresaw: a long URL part still there, however split or escaped. */
function showsSecret(text: string, secrets: Secret[]): boolean {
  const letters = lettersOf(decodeHTML(decodePercents(text)));
  return secrets.some(([secret, match]) => {
    const secretLetters = lettersOf(secret);
    return match !== "word" && secretLetters.length >= LOOSE_MIN_LENGTH && letters.includes(secretLetters);
  });
}

/** Its letters and digits alone, lower-case. */
const lettersOf = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

/** Runs of escapes decoded until none is left (`%2573` is `%73` is `s`); where a run is no UTF-8, its ASCII ones. */
function decodePercents(text: string): string {
  const ascii = (run: string) =>
    run.replace(/%[0-7][0-9a-f]/gi, (one) => String.fromCharCode(parseInt(one.slice(1), 16)));
  const decoded = text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => percentDecoded(run) ?? ascii(run));
  return decoded === text ? text : decodePercents(decoded);
}

/** Written out before anything is looked for, so an escaped URL cannot slip through (a cut body is no JSON). */
function decodeEscapes(text: string): string {
  return decodePercents(
    text
      .replace(/\\\//g, "/")
      .replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/&#(x[0-9a-f]{1,6}|\d{1,7});/gi, (reference, code: string) => {
        const point = Number(code.replace(/^x/i, "0x"));
        return point <= 0x10ffff ? String.fromCodePoint(point) : reference;
      }),
  );
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

/** Tags that split no word where they stand: `<b>secret</b>path` reads "secretpath". */
const INLINE_TAG =
  /<\/?(?:a|abbr|b|bdi|bdo|cite|code|data|del|dfn|em|font|i|ins|kbd|mark|q|s|samp|small|span|strong|sub|sup|time|tt|u|var|wbr)\b[^>]*>/gi;

/** An HTML error page (nginx's 502, a proxy's 503) read as its title or its text. */
function htmlText(text: string): string | null {
  if (!/<[a-z!/][^>]*>/i.test(text)) return null;
  const withoutComments = text.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(withoutComments)?.[1];
  const visible = title ?? withoutComments.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ");
  return decodeHTML(visible.replace(INLINE_TAG, "").replace(/<[^>]*>/g, " "));
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
    domainToUnicode(url.hostname),
    url.pathname,
    url.pathname.replace(/^\/+/, ""),
    url.search,
    url.search.slice(1),
    basicCredentials(url),
    Buffer.from(basicCredentials(url), "base64").toString("base64url"),
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
    const decoded = percentDecodedOrAsIs(part);
    const match =
      !asWords && /[/?&=:.@]/.test(decoded) ? "anywhere" : decoded.length >= LOOSE_MIN_LENGTH ? "loose" : "word";
    for (const spelling of [part, decoded, encodeURIComponent(decoded), encodeURI(decoded)]) {
      secrets.set(spelling, match);
    }
  }
  return [...secrets].sort(([a], [b]) => b.length - a.length);
}

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
