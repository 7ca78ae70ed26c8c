import { domainToASCII, domainToUnicode } from "node:url";

const MAX_ADDRESS_LENGTH = 254;
/** RFC 5321 counts the local part in octets; UTF-8 bytes are what a mail server sees. */
const MAX_LOCAL_PART_BYTES = 64;
const MAX_ASCII_DOMAIN_LENGTH = 253;

/** Any script's letters, marks and digits, and the ASCII punctuation real addresses use (no quotes, brackets…). */
const LOCAL_PART = /^[\p{L}\p{M}\p{N}.!#$%&'*+/=?^_|~-]+$/u;
/** A spreadsheet reads a cell starting with these as a formula; `.` and `'` start no real address. */
const FORBIDDEN_FIRST = /^[=+\-@.']/;
const DOMAIN_LABEL = /^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u;
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
/** Characters that render as nothing (U+034F, U+3164, U+200B…) or control the text itself. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{C}\s]/u;

/** The address's one spelling (NFC, the domain lower-case in Unicode), or null: docs/decisions/004-email-rule.md. */
export function normalizeEmail(typed: string): string | null {
  // Only the spaces a person types are trimmed: String#trim would also drop a byte-order mark.
  const address = typed.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "").normalize("NFC");
  if (address.length > MAX_ADDRESS_LENGTH || INVISIBLE.test(address)) return null;
  const at = address.indexOf("@");
  if (at < 1 || at !== address.lastIndexOf("@")) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1).toLowerCase();
  return isLocalPart(local) && isDomain(domain) ? `${local}@${domainToUnicode(domainToASCII(domain))}` : null;
}

function isLocalPart(local: string): boolean {
  return (
    LOCAL_PART.test(local) &&
    !FORBIDDEN_FIRST.test(local) &&
    !local.endsWith(".") &&
    !local.includes("..") &&
    Buffer.byteLength(local, "utf8") <= MAX_LOCAL_PART_BYTES
  );
}

function isDomain(domain: string): boolean {
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return false;
  const ascii = domainToASCII(domain);
  if (!ascii || ascii.length > MAX_ASCII_DOMAIN_LENGTH) return false;
  return TOP_LEVEL.test(ascii.slice(ascii.lastIndexOf(".") + 1));
}
