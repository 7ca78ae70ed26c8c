/** "ana.souza@exemplo.com.br" → "a***@exemplo.com.br": enough to follow a case, not to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return email ? "***" : "";
  return `${email[0]}***${email.slice(at)}`;
}

type LogFields = Record<string, string | number | boolean | undefined>;

/** One JSON object per line on stdout, so any log shipper can parse it. */
export function logEvent(event: string, fields: LogFields): void {
  console.log(JSON.stringify({ time: new Date().toISOString(), event, ...fields }));
}

/** An error as one log line: its name, message and the line it was thrown from, never a multi-line stack. */
export function logError(event: string, error: unknown, fields: LogFields = {}): void {
  const { name, message, stack } =
    error instanceof Error ? error : { name: typeof error, message: String(error), stack: undefined };
  logEvent(event, { ...fields, name, message, at: stack?.split("\n")[1]?.trim() });
}

export const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
