import type { BotTrapFields } from "./result";
import { MAC_PATTERN, type SignedTokens } from "./signed-tokens.server";

/**
 * A person needs longer than this to read the form and type an address; a
 * form posted sooner after it was rendered is a bot's.
 */
export const MIN_SUBMIT_MS = 1_500;
/**
 * How long a rendered form stays good. Past it the visitor is asked to send
 * again with fresh fields, and a timestamp scraped once stops working.
 */
export const FORM_MAX_AGE_MS = 2 * 60 * 60 * 1000;

/** The form's two hidden fields, named so that form-filling bots fill the first one in. */
const NAME_FIELD = "name__confirm";
const VALID_FROM_FIELD = "from__confirm";
/** A signed "valid from" time: milliseconds since 1970 (13 digits), a dot, its MAC. */
const VALID_FROM_TOKEN = new RegExp(`^([1-9]\\d{12})\\.(${MAC_PATTERN})$`);

/**
 * What the bot trap makes of a post: a person; a bot (answered as if it
 * succeeded); a form this server signed but too long ago (a page left open);
 * or a time no secret of ours signed (junk, or a page from before the secret
 * changed), which earns nothing a script could use.
 */
export type TrapVerdict = { kind: "human" } | { kind: "bot"; why: string } | { kind: "stale" } | { kind: "unreadable" };

/**
 * A hidden field bots fill in, plus a signed "valid from" time MIN_SUBMIT_MS
 * after the render: a form posted sooner than a person could have typed an
 * address is a bot. A time older than FORM_MAX_AGE_MS is a page left open,
 * and one that cannot be read may be a page from before a secret change: the
 * visitor is told, never shown a fake success.
 */
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

  inspect(form: FormData, now = Date.now()): TrapVerdict {
    const name = form.get(NAME_FIELD);
    const token = form.get(VALID_FROM_FIELD);
    if (name === null && token === null) return { kind: "bot", why: "bot-trap fields missing" };
    if (name !== "") return { kind: "bot", why: name === null ? "bot-trap field missing" : "bot-trap field filled" };
    if (typeof token !== "string" || token === "") return { kind: "bot", why: "timestamp missing" };
    const validFrom = this.validFrom(token);
    if (validFrom === null) return { kind: "unreadable" };
    if (validFrom > now) return { kind: "bot", why: "sent too fast" };
    if (now - (validFrom - MIN_SUBMIT_MS) > FORM_MAX_AGE_MS) return { kind: "stale" };
    return { kind: "human" };
  }

  /** The time a token vouches for, or null when it was not signed with this secret. */
  private validFrom(token: string): number | null {
    const match = VALID_FROM_TOKEN.exec(token);
    if (!match || !this.tokens.verify("bot-trap", [match[1]!], match[2]!)) return null;
    return Number(match[1]);
  }
}
