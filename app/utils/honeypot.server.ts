import { createHmac } from "node:crypto";
import { Honeypot, type HoneypotInputProps } from "remix-utils/honeypot/server";

const NAME_FIELD = "name__confirm";
const VALID_FROM_FIELD = "from__confirm";
/**
 * How long a rendered form stays good. Past it the visitor is asked to send
 * again with fresh tokens, and a timestamp scraped once stops working.
 */
export const FORM_MAX_AGE_MS = 2 * 60 * 60 * 1000;

/** What the bot trap makes of a post: a person, a bot (answered as if it succeeded), or a form too old to trust. */
export type TrapVerdict = { kind: "human" } | { kind: "bot"; why: string } | { kind: "stale"; why: string };

/** remix-utils' honeypot, with its "valid from" time read back so it can also expire. */
class ExpiringHoneypot extends Honeypot {
  /** The encrypted "valid from" time, or null when it cannot be read (another secret, garbage). */
  validFrom(encrypted: string): number | null {
    try {
      const text = this.decrypt(encrypted);
      return /^[1-9]\d{0,15}$/.test(text) ? Number(text) : null;
    } catch {
      return null; // crypto-js throws on some malformed input
    }
  }
}

/**
 * The hidden field bots fill in, plus an encrypted "valid from" timestamp set
 * `minSubmitMs` in the future: a form posted sooner than a person could have
 * typed an address is a bot. A timestamp that cannot be read (the secret
 * changed) or is older than FORM_MAX_AGE_MS is not a bot's mark but a page
 * left open: the visitor is told, never shown a fake success.
 */
export class BotTrap {
  private readonly honeypot: ExpiringHoneypot;

  constructor(
    secret: string,
    private readonly minSubmitMs: number,
  ) {
    this.honeypot = new ExpiringHoneypot({
      nameFieldName: NAME_FIELD,
      validFromFieldName: VALID_FROM_FIELD,
      // A key of its own, derived from the signing secret.
      encryptionSeed: createHmac("sha256", secret).update("honeypot").digest("base64url"),
    });
  }

  /** Fields for a page about to be shown; `resend` for a visitor who already waited and only presses again. */
  inputProps(now = Date.now(), { resend = false } = {}): HoneypotInputProps {
    return this.honeypot.getInputProps({ validFromTimestamp: now + (resend ? 0 : this.minSubmitMs) });
  }

  inspect(form: FormData, now = Date.now()): TrapVerdict {
    const name = form.get(NAME_FIELD);
    const encrypted = form.get(VALID_FROM_FIELD);
    if (name === null && encrypted === null) return { kind: "bot", why: "honeypot fields missing" };
    if (name !== "") return { kind: "bot", why: name === null ? "honeypot field missing" : "honeypot filled" };
    if (typeof encrypted !== "string" || encrypted === "") return { kind: "bot", why: "timestamp missing" };
    const validFrom = this.honeypot.validFrom(encrypted);
    if (validFrom === null) return { kind: "stale", why: "timestamp unreadable" };
    if (validFrom > now) return { kind: "bot", why: "sent too fast" };
    if (now - (validFrom - this.minSubmitMs) > FORM_MAX_AGE_MS) return { kind: "stale", why: "form too old" };
    return { kind: "human" };
  }
}
