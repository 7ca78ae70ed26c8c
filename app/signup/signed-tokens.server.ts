import { createHmac, timingSafeEqual } from "node:crypto";

/** Each gets a key of its own, so one kind can never pass for another. */
type TokenPurpose = "bot-trap" | "question";

/** Every token we hand out and read back (decision 001): text and its MAC, checked by any instance with the secret. */
export class SignedTokens {
  private readonly keys: Record<TokenPurpose, Buffer>;

  constructor(secret: string) {
    const derive = (purpose: TokenPurpose) => createHmac("sha256", secret).update(`signed-token:${purpose}`).digest();
    this.keys = { "bot-trap": derive("bot-trap"), question: derive("question") };
  }

  /** 43 base64url characters; `parts` may hold what the token's text leaves out (a question's answer). */
  mac(purpose: TokenPurpose, parts: ReadonlyArray<string | number>): string {
    return createHmac("sha256", this.keys[purpose]).update(parts.join(":")).digest("base64url");
  }

  /** In constant time. */
  verify(purpose: TokenPurpose, parts: ReadonlyArray<string | number>, mac: string): boolean {
    const expected = Buffer.from(this.mac(purpose, parts));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(expected, given);
  }
}

export const MAC_PATTERN = "[A-Za-z0-9_-]{43}";

/** `X-Signup-Signature`, Stripe's scheme, under a secret of its own (docs/delivery.md, "What the webhook receives"). */
export function webhookSignature(secret: string, rawBody: string, unixSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${rawBody}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
