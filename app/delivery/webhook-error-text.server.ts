import { decodeHTML } from "entities";
import ipaddr from "ipaddr.js";
import { STATUS_CODES } from "node:http";
import { domainToUnicode } from "node:url";

const SHOWN_TEXT_LIMIT = 200;
/** A piece this long of a URL part is caught wherever it stands and whatever splits it: a UUID's first 18 characters. */
const PIECE_LENGTH = 6;
/**
 * Path segments every n8n (`/webhook/<path>`, `/form-test/<path>`) or Zapier (`/hooks/catch/<n>/<id>/silent/`) URL
 * shares: words, not secrets (Make's `hook.eu1.make.com/<id>` has none).
 */
const SHARED_SEGMENT = /^(?:(?:webhook|form)(?:-test|-waiting)?|hooks|catch|silent)$/;

type ErrorAnswer = { status: number; statusText: string; text: string; cut: boolean };

/**
 * What a visitor may read of the webhook's error answer, whose URL is a secret (n8n's 404 names its path): the status
 * always, and a message only when nothing in it could be part of the URL in any spelling. Else the message is "" and
 * the visitor reads the status alone: a spelling nobody foresaw then hides a message instead of showing a secret.
 */
export function publicError({ status, statusText, text, cut }: ErrorAnswer, webhookUrl: string) {
  const mayShow = showableBeside(webhookUrl);
  // A cut body may end in part of a word: a piece too short to be recognised.
  const message = messageOf(cut ? text.replace(/\s\S*$/, "") : text);
  return {
    statusText: statusText && mayShow(statusText) ? statusText : (STATUS_CODES[status] ?? ""),
    text: mayShow(message) ? oneShortLine(message) : "",
  };
}

/** What the automation meant to say: a JSON error's message, an HTML page's title, or plain text as it stands. */
function messageOf(body: string): string {
  const json = jsonMessage(body);
  if (json !== null) return json;
  if (!/<[a-z!/][^>]*>/i.test(body)) return body;
  return decodeHTML(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1] ?? "");
}

/** `{"message": "…"}` and the like; null for anything else (a cut body is no JSON). */
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

function oneShortLine(message: string): string {
  const line = message.replace(/[<>\p{C}\s]+/gu, " ").trim();
  return line.length > SHOWN_TEXT_LIMIT ? `${line.slice(0, SHOWN_TEXT_LIMIT - 1)}…` : line;
}

/**
 * Whether a text may be shown: no token in it could be part of the URL (host, port, each path segment but the shared
 * ones, query names and values, user, password: a short part whole, a longer one by any piece of it, whatever separates
 * its runs), nor is a number of 6 digits or more, a long run mixing letters and digits (a token, a hash), an IP or a URL.
 */
function showableBeside(webhookUrl: string): (text: string) => boolean {
  const url = new URL(webhookUrl);
  const parts = [
    url.hostname,
    domainToUnicode(url.hostname),
    url.port,
    ...url.pathname.split("/"),
    ...url.search.slice(1).split(/[&=]/),
    url.username,
    url.password,
  ]
    .map((part) => writtenOut(part).toLowerCase())
    .filter((part) => !SHARED_SEGMENT.test(part))
    .map(runsOf)
    .filter((runs) => runs.length > 0);
  const shortParts = parts.filter((runs) => runs.join("").length < PIECE_LENGTH).map((runs) => ` ${runs.join(" ")} `);
  const pieces = parts
    .map((runs) => runs.join(""))
    .flatMap((part) =>
      Array.from({ length: part.length - PIECE_LENGTH + 1 }, (_, i) => part.slice(i, i + PIECE_LENGTH)),
    );
  return (text) => {
    const read = readings(text);
    const runs = runsOf(read);
    const words = ` ${runs.join(" ")} `;
    const letters = runs.join("");
    return !(
      shortParts.some((part) => words.includes(part)) ||
      pieces.some((piece) => letters.includes(piece)) ||
      runs.some(looksLikeSecret) ||
      holdsIp(read) ||
      read.includes("://")
    );
  };
}

const runsOf = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? [];

const looksLikeSecret = (run: string) =>
  /^\p{N}{6,}$/u.test(run) || (run.length >= 8 && /\p{L}/u.test(run) && /\p{N}/u.test(run));

/** An address in any notation a URL host takes: `127.1`, `0x7f.0.0.1`, `::ffff:7f00:1` (a bare number is a run). */
function holdsIp(text: string): boolean {
  const candidates = text.match(/(?<![\p{L}\p{N}])[\da-fx.:]*[.:][\da-fx.:]*(?![\p{L}\p{N}])/gu) ?? [];
  return candidates.some((candidate) => {
    const address = candidate.replace(/\.$/, "");
    return ipaddr.isValid(address) || ipaddr.isValid(address.replace(/:\d+$/, ""));
  });
}

/** The text as every spelling of it reads, lower-case: escapes written out, and beside it what its base64 runs spell. */
function readings(text: string): string {
  const written = writtenOut(text);
  const spelled = (written.match(/[\w+/-]{8,}={0,2}/g) ?? []).map(base64Text).filter((run) => run !== null);
  return [written, ...spelled.map(readings)].join(" ").toLowerCase();
}

/** NFKC (full-width letters), percent and JSON escapes, HTML entities, until none is left; no invisible characters. */
function writtenOut(text: string): string {
  let written = text;
  for (let previous = ""; written !== previous;) {
    previous = written;
    written = decodeHTML(
      written
        .normalize("NFKC")
        // Every escape in a run, whatever bytes they make (a broken UTF-8 sequence reads as U+FFFD).
        .replace(/(?:%[\da-f]{2})+/gi, (run) => Buffer.from(run.replaceAll("%", ""), "hex").toString())
        .replace(/\\u([\da-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    ).replace(/\p{Cf}/gu, "");
  }
  return written;
}

/** What a base64 or base64url run spells, when that is text. */
function base64Text(run: string): string | null {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(run, "base64"));
    return /^\P{C}+$/u.test(text) ? text : null;
  } catch {
    return null;
  }
}
