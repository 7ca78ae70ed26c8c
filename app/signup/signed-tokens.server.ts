import { createHmac, timingSafeEqual } from "node:crypto";

/** What a token vouches for; each gets a key of its own, so one kind can never pass for another. */
export type TokenPurpose = "bot-trap" | "question";

/**
 * Every token the server hands out and later reads back is signed here, with
 * HMAC-SHA256 under a key derived from SIGNUP_SECRET per purpose: the bot
 * trap's "valid from" time and the fallback question. (What the server signs
 * for others, the webhook's requests, is signed below with a secret of its own.) A token is readable
 * text and its MAC, so any instance holding the same secret checks it without
 * shared state; `hidden` parts (a question's answer) are covered by the MAC
 * but never written into the token.
 */
export class SignedTokens {
  private readonly keys: Record<TokenPurpose, Buffer>;

  constructor(secret: string) {
    const derive = (purpose: TokenPurpose) => createHmac("sha256", secret).update(`signed-token:${purpose}`).digest();
    this.keys = { "bot-trap": derive("bot-trap"), question: derive("question") };
  }

  /** The 43-character base64url MAC of `parts` for `purpose`. */
  mac(purpose: TokenPurpose, parts: ReadonlyArray<string | number>): string {
    return createHmac("sha256", this.keys[purpose]).update(parts.join(":")).digest("base64url");
  }

  /** Whether `mac` is the MAC of `parts` for `purpose`, compared in constant time. */
  verify(purpose: TokenPurpose, parts: ReadonlyArray<string | number>, mac: string): boolean {
    const expected = Buffer.from(this.mac(purpose, parts));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(expected, given);
  }
}

/** The shape of every MAC `SignedTokens` writes. */
export const MAC_PATTERN = "[A-Za-z0-9_-]{43}";

/**
 * The `X-Signup-Signature` of one webhook request, Stripe's scheme:
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under
 * WEBHOOK_SIGNING_SECRET, so the automation can prove the sender and refuse
 * an old request replayed.
 */
export function webhookSignature(secret: string, rawBody: string, unixSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${rawBody}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
