/**
 * Where the boot's one beacon arrives when the visitor nears the form (docs/insight.md), shared by the server and the
 * boot's inline script.
 */
export const FORM_REACHED_PATH = "/__insight/reached";

/** The campaign's parameters in the page's address, each a label of the counts. */
export const CAMPAIGN_PARAMS = ["utm_source", "utm_medium", "utm_campaign"] as const;
/** How long a campaign parameter's value may be when carried from one post to the next: a label reads less. */
const CARRIED_LENGTH = 160;

/**
 * The campaign parameters of `query` (those present and not empty), as a query to carry into the form's next post:
 * the page it lands on has another address (`/?index`), whose own query then names the campaign.
 */
export function campaignQuery(query: URLSearchParams): string {
  const carried = new URLSearchParams();
  for (const name of CAMPAIGN_PARAMS) {
    const value = query.get(name)?.slice(0, CARRIED_LENGTH);
    if (value) carried.set(name, value);
  }
  return carried.toString();
}

/** The beacon's field naming the referring site's host name (only the host is sent). */
export const REFERRER_FIELD = "referrer";
