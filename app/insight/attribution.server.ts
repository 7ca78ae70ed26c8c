import { CAMPAIGN_PARAMS } from "./paths";

export type CampaignLabels = Record<(typeof CAMPAIGN_PARAMS)[number], string>;

/**
 * Values we write ourselves, in parentheses: normalisation never yields one, so no address can forge them.
 * NONE: the parameter is absent; DIRECT: no referring site; SELF: the site itself; OTHER: past a bound.
 */
export const NONE = "(none)";
export const DIRECT = "(direct)";
export const SELF = "(self)";
export const OTHER = "(other)";

/** Long enough for any campaign name a person types; /metrics lines stay short. */
export const LABEL_LENGTH = 40;
/** Read of a value before it is normalised: a 16 KB query costs no more than a short one. */
const READ_LENGTH = 4 * LABEL_LENGTH;

/**
 * What a person's data looks like in a link a mailing tool or a form filled in, once normalised and unescaped: an
 * e-mail address (its `@` in any spelling: full-width, percent- or HTML-escaped, `(at)`, `[arroba]`), or a phone or
 * CPF number (ten digits or more, whatever separates them but a letter: a dash of a word processor, `_`, `·`, an
 * invisible space). A date in a campaign's name (20261126) has eight.
 */
const PERSONAL = /@|&#0*64;|&#x0*40;|&commat;|[([{<]\s*(?:at|arroba)\s*[)\]}>]|(?:\d[^\p{L}\d]*){10}/u;
/** An ASCII character still percent-encoded (a link encoded twice or more): `%2540` is `%40`, then `@`. */
const ESCAPED_ASCII = /%([0-7][0-9a-f])/gi;
/** No link is encoded more often than that: past it, what is left of an escape is a separator. */
const UNESCAPE_ROUNDS = 4;

/** `text` with what is still percent-encoded in it decoded, for PERSONAL to read what a person would. */
function unescaped(text: string): string {
  for (let round = 0; round < UNESCAPE_ROUNDS; round++) {
    const next = text.replace(ESCAPED_ASCII, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === text) break;
    text = next;
  }
  return text.replace(/%[0-9a-f]{2}/gi, " ");
}

/**
 * A label value from what a visitor's address says: accents dropped, lower case, runs of anything but
 * `a-z 0-9 . _ -` made one `_`, cut to LABEL_LENGTH; null when nothing is left. A value that looks like a person's
 * data (PERSONAL) is OTHER: it must not become a label.
 */
export function labelValue(raw: string): string | null {
  const normalised = raw.slice(0, READ_LENGTH).normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  if (PERSONAL.test(unescaped(normalised))) return OTHER;
  const value = normalised
    .replace(/[^a-z0-9._-]+/g, "_")
    .slice(0, LABEL_LENGTH)
    .replace(/^_+|_+$/g, "");
  return value || null;
}

/** The campaign of a page's address (its query): each utm_* parameter's label value, NONE when absent or empty. */
export function campaignOf(query: URLSearchParams): CampaignLabels {
  const entries = CAMPAIGN_PARAMS.map((name) => [name, labelValue(query.get(name) ?? "") ?? NONE]);
  return Object.fromEntries(entries) as CampaignLabels;
}

/**
 * The campaign query of the page a post came from: the post's own address when it carries one (the form carries it
 * from one post to the next: paths.ts, campaignQuery), else its `Referer` (the full address on our own pages).
 */
export function campaignQueryOfPost(url: string, referer: string | null): URLSearchParams {
  const own = new URL(url).searchParams;
  if (CAMPAIGN_PARAMS.some((name) => own.get(name))) return own;
  return URL.parse(referer ?? "")?.searchParams ?? new URLSearchParams();
}

/**
 * The referring site as a label: its host name without `www.`, DIRECT when there is none, SELF when it is
 * `ownHost` (the request's `Host`, port ignored).
 */
export function referringSite(hostname: string | null | undefined, ownHost: string | null | undefined): string {
  const host = hostname?.trim().toLowerCase().replace(/\.$/, "");
  if (!host) return DIRECT;
  if (host === hostnameOf(ownHost)) return SELF;
  return labelValue(host.replace(/^www\./, "")) ?? DIRECT;
}

/** The host name of a `Referer` header: null when there is none or it is no address. */
export const refererHost = (referer: string | null | undefined) => URL.parse(referer ?? "")?.hostname || null;

/** `example.com` of a Host header such as `example.com:8080`. */
const hostnameOf = (host: string | null | undefined) => (host ? URL.parse(`http://${host}/`)?.hostname : undefined);
