import { createHmac, timingSafeEqual } from "node:crypto";

/** Each gets a key of its own, so one kind can never pass for another. */
type TokenPurpose = "bot-trap" | "question";

type Keys = Record<TokenPurpose, Buffer>;

function keysOf(secret: string): Keys {
  const derive = (purpose: TokenPurpose) => createHmac("sha256", secret).update(`signed-token:${purpose}`).digest();
  return { "bot-trap": derive("bot-trap"), question: derive("question") };
}

const macUnder = (key: Buffer, parts: ReadonlyArray<string | number>) =>
  createHmac("sha256", key).update(parts.join(":")).digest("base64url");

/**
 * Every token we hand out and read back (decision 001): text and its MAC, checked by any instance with the secret.
 * Signed with `secret`; read back under it or, during a rotation, under `previous` (SIGNUP_SECRET_PREVIOUS), so pages
 * opened before the rotation still sign up.
 */
export class SignedTokens {
  private readonly keys: Keys;
  private readonly readable: Keys[];

  constructor(secret: string, previous?: string) {
    this.keys = keysOf(secret);
    this.readable = previous ? [this.keys, keysOf(previous)] : [this.keys];
  }

  /** 43 base64url characters; `parts` may hold what the token's text leaves out (a question's answer). */
  mac(purpose: TokenPurpose, parts: ReadonlyArray<string | number>): string {
    return macUnder(this.keys[purpose], parts);
  }

  /** `mac` under each secret a token may have been signed with, the current one first. */
  macsUnderEach(purpose: TokenPurpose, parts: ReadonlyArray<string | number>): string[] {
    return this.readable.map((keys) => macUnder(keys[purpose], parts));
  }

  /** In constant time. */
  verify(purpose: TokenPurpose, parts: ReadonlyArray<string | number>, mac: string): boolean {
    return this.signerOf(purpose, () => parts, mac) !== -1;
  }

  /**
   * Which secret signed `mac` (0: the current one, 1: the previous one), over the parts `partsFor` gives for that
   * secret (a question's answer depends on it); -1 for none. In constant time.
   */
  signerOf(purpose: TokenPurpose, partsFor: (secret: number) => ReadonlyArray<string | number>, mac: string): number {
    const given = Buffer.from(mac);
    return this.readable.findIndex((keys, secret) => {
      const expected = Buffer.from(macUnder(keys[purpose], partsFor(secret)));
      return given.length === expected.length && timingSafeEqual(expected, given);
    });
  }
}

export const MAC_PATTERN = "[A-Za-z0-9_-]{43}";
