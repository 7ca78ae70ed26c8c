/** What a browser or a scraper does with the page: read its form tokens and post the form. */

/** The route's loader data: the bot-trap fields and the fallback question of the current render. */
export type PageTokens = {
  honeypot: { nameFieldName: string; validFromFieldName: string; encryptedValidFrom: string };
  challenge: { question: string; token: string } | null;
};

export async function pageTokens(origin: string): Promise<PageTokens> {
  return (await (await fetch(`${origin}/?_data=routes%2F_index`)).json()) as PageTokens;
}

/** The honeypot fields exactly as the rendered form sends them. */
export function pageFields({ honeypot }: PageTokens): Record<string, string> {
  return { [honeypot.nameFieldName]: "", [honeypot.validFromFieldName]: honeypot.encryptedValidFrom };
}

export async function honeypotFields(origin: string): Promise<Record<string, string>> {
  return pageFields(await pageTokens(origin));
}

/** POSTs a sign-up as the form would; `data: true` asks for the JSON answer JavaScript gets. */
export function postSignup(
  origin: string,
  fields: Record<string, string>,
  { userAgent = "signup-client", data = false, headers = {} as Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${origin}/?index${data ? "&_data=routes%2F_index" : ""}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": userAgent, ...headers },
    body: new URLSearchParams(fields),
  });
}
