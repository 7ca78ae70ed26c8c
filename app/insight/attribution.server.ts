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
 * A label value from what a visitor's address says: accents dropped, lower case, runs of anything but
 * `a-z 0-9 . _ -` made one `_`, cut to LABEL_LENGTH; null when nothing is left. Whether it may be shown is the
 * bounds' question (bounded-labels.server.ts): a campaign's only once a sign-up vouched for it.
 */
export function labelValue(raw: string): string | null {
  const value = raw
    .slice(0, READ_LENGTH)
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
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
 * `ownHost` (the request's `Host`, port ignored), OTHER when it is no site's name (HOST_NAME).
 */
export function referringSite(hostname: string | null | undefined, ownHost: string | null | undefined): string {
  const host = hostname?.trim().toLowerCase().replace(/\.$/, "");
  if (!host) return DIRECT;
  if (host === hostnameOf(ownHost)) return SELF;
  const site = host.replace(/^www\./, "");
  return HOST_NAME.test(site) ? labelValue(site)! : OTHER;
}

/** A site's name: dot-separated labels ending in letters (or an A-label), never a number, a phrase or an address. */
const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** The host name of a `Referer` header: null when there is none or it is no address. */
export const refererHost = (referer: string | null | undefined) => URL.parse(referer ?? "")?.hostname || null;

/** `example.com` of a Host header such as `example.com:8080`. */
const hostnameOf = (host: string | null | undefined) => (host ? URL.parse(`http://${host}/`)?.hostname : undefined);
