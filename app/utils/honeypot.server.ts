import { createHmac } from "node:crypto";
import { Honeypot, SpamError, type HoneypotInputProps } from "remix-utils/honeypot/server";

const NAME_FIELD = "name__confirm";
const VALID_FROM_FIELD = "from__confirm";

/**
 * The hidden field bots fill in, plus an encrypted "valid from" timestamp set
 * `minSubmitMs` in the future: a form posted sooner than a person could have
 * typed an address is a bot. The library only checks these fields when they
 * are present, so a post that drops both is caught here too.
 */
export class BotTrap {
  private readonly honeypot: Honeypot;

  constructor(
    secret: string,
    private readonly minSubmitMs: number,
  ) {
    this.honeypot = new Honeypot({
      nameFieldName: NAME_FIELD,
      validFromFieldName: VALID_FROM_FIELD,
      // A key of its own, derived from the signing secret.
      encryptionSeed: createHmac("sha256", secret).update("honeypot").digest("base64url"),
    });
  }

  inputProps(now = Date.now()): HoneypotInputProps {
    return this.honeypot.getInputProps({ validFromTimestamp: now + this.minSubmitMs });
  }

  /** Why the form looks automated, or null when it looks human. */
  suspicion(form: FormData): string | null {
    if (!form.has(NAME_FIELD) || !form.has(VALID_FROM_FIELD)) {
      return "honeypot fields missing";
    }
    try {
      this.honeypot.check(form);
      return null;
    } catch (error) {
      // Garbage in the encrypted field can make decryption itself throw: still a bot.
      return error instanceof SpamError ? error.message : "honeypot timestamp unreadable";
    }
  }
}
