import type { BotTrapFields } from "./result";
import { MAC_PATTERN, type SignedTokens } from "./signed-tokens.server";

// A hidden field bots fill in, and a signed "valid from" time: docs/decisions/001-kept-secret-and-form-age.md.

/** A person needs longer than this to read the form and type an address. */
export const MIN_SUBMIT_MS = 1_500;
/** Past it the visitor sends again with fresh fields, and a timestamp scraped once stops working. */
export const FORM_MAX_AGE_MS = 2 * 60 * 60 * 1000;

/** Named so that form-filling bots fill the first one in. */
const NAME_FIELD = "name__confirm";
const VALID_FROM_FIELD = "from__confirm";
export const BOT_TRAP_FIELDS = [NAME_FIELD, VALID_FROM_FIELD];
/** A signed "valid from" time: milliseconds since 1970 (13 digits), a dot, its MAC. */
const VALID_FROM_TOKEN = new RegExp(`^([1-9]\\d{12})\\.(${MAC_PATTERN})$`);

/** `stale`: signed here, too long ago (a page left open); `unreadable`: no secret of ours signed it. */
type TrapVerdict = { kind: "human" } | { kind: "bot"; why: string } | { kind: "stale" } | { kind: "unreadable" };

export class BotTrap {
  constructor(private readonly tokens: SignedTokens) {}

  /** Fields for a page about to be shown; `resend` for a visitor who already waited and only presses again. */
  fields(now = Date.now(), { resend = false } = {}): BotTrapFields {
    const validFrom = now + (resend ? 0 : MIN_SUBMIT_MS);
    return {
      nameField: NAME_FIELD,
      validFromField: VALID_FROM_FIELD,
      validFrom: `${validFrom}.${this.tokens.mac("bot-trap", [validFrom])}`,
    };
  }

  inspect(form: URLSearchParams, now = Date.now()): TrapVerdict {
    const name = form.get(NAME_FIELD);
    const token = form.get(VALID_FROM_FIELD);
    if (name === null && token === null) return { kind: "bot", why: "bot-trap fields missing" };
    if (name !== "") return { kind: "bot", why: name === null ? "bot-trap field missing" : "bot-trap field filled" };
    if (typeof token !== "string" || token === "") return { kind: "bot", why: "timestamp missing" };
    const match = VALID_FROM_TOKEN.exec(token);
    if (!match || !this.tokens.verify("bot-trap", [match[1]!], match[2]!)) return { kind: "unreadable" };
    const validFrom = Number(match[1]);
    if (validFrom > now) return { kind: "bot", why: "sent too fast" };
    if (now - (validFrom - MIN_SUBMIT_MS) > FORM_MAX_AGE_MS) return { kind: "stale" };
    return { kind: "human" };
  }
}
