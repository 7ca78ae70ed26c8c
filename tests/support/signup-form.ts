/** What a browser posts to the form action: the page's honeypot fields plus the visitor's. */

type FormTokens = { honeypot: { nameFieldName: string; validFromFieldName: string; encryptedValidFrom: string } };

/** The honeypot fields exactly as the page hands them out (from the route's loader data). */
export async function honeypotFields(origin: string): Promise<Record<string, string>> {
  const { honeypot } = (await (await fetch(`${origin}/?_data=routes%2F_index`)).json()) as FormTokens;
  return { [honeypot.nameFieldName]: "", [honeypot.validFromFieldName]: honeypot.encryptedValidFrom };
}

/** POSTs a sign-up as the form would; `data: true` asks for the JSON answer JavaScript gets. */
export function postSignup(
  origin: string,
  fields: Record<string, string>,
  { userAgent = "signup-client", data = false } = {},
): Promise<Response> {
  return fetch(`${origin}/?index${data ? "&_data=routes%2F_index" : ""}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": userAgent },
    body: new URLSearchParams(fields),
  });
}
