/** "ana.souza@exemplo.com.br" → "a***@exemplo.com.br": enough to follow a case, not to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return email ? "***" : "";
  return `${email[0]}***${email.slice(at)}`;
}

export type LogFields = Record<string, string | number | boolean | undefined>;

/** One JSON object per line on stdout, so any log shipper can parse it. */
export function logEvent(event: string, fields: LogFields): void {
  console.log(JSON.stringify({ time: new Date().toISOString(), event, ...fields }));
}
