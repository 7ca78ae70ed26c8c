import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Challenge } from "~/signup-result";
import type { Limit } from "./state/shared-state.server";

export const NUMBER_WORDS = [
  "zero",
  "um",
  "dois",
  "três",
  "quatro",
  "cinco",
  "seis",
  "sete",
  "oito",
  "nove",
  "dez",
  "onze",
  "doze",
  "treze",
  "catorze",
  "quinze",
  "dezesseis",
  "dezessete",
  "dezoito",
  "dezenove",
  "vinte",
];
/** Spellings a visitor may type besides the canonical word. */
const WORD_ALIASES: Record<string, number> = { uma: 1, duas: 2, quatorze: 14 };

export const CHALLENGE_TTL_MS = 10 * 60 * 1000;
/** The one spelling of a token: 12-character id, expiry in milliseconds (13 digits), 43-character MAC. */
const TOKEN_SHAPE = /^([A-Za-z0-9_-]{12})\.([1-9]\d{12})\.([A-Za-z0-9_-]{43})$/;

/** `unavailable`: the shared count of answers could not be asked (Redis away), so nothing is accepted. */
export type ChallengeVerdict = "correct" | "wrong" | "expired" | "unavailable";

/**
 * A question in Portuguese with a typed answer, for visitors without hCaptcha.
 * Stateless: the token carries an id, an expiry and an HMAC of the answer, so
 * any instance holding the same secret can check it. Only the count of correct
 * answers per id is kept, in the shared state (`answers`: ANSWERS_PER_SHARED_QUESTION of shared-render.server.ts
 * per id for CHALLENGE_TTL_MS), so the count holds across instances.
 */
export class ChallengeBook {
  constructor(
    private readonly secret: string,
    private readonly answers: Limit,
  ) {}

  create(now = Date.now(), random: () => number = Math.random): Challenge {
    const left = 1 + Math.floor(random() * 9);
    const right = 1 + Math.floor(random() * 9);
    const subtract = random() < 0.5 && left > right;
    const answer = subtract ? left - right : left + right;
    const question = `Quanto é ${NUMBER_WORDS[left]} ${subtract ? "menos" : "mais"} ${NUMBER_WORDS[right]}?`;
    const id = randomBytes(9).toString("base64url");
    const expiresAt = now + CHALLENGE_TTL_MS;
    return { question, token: `${id}.${expiresAt}.${this.mac(id, expiresAt, answer)}` };
  }

  /**
   * Checks the answer against the token's MAC first; only a correct answer to
   * a genuine question is counted, so forged ids never reach the bookkeeping.
   */
  async verify(token: string, typedAnswer: string, now = Date.now()): Promise<ChallengeVerdict> {
    const match = TOKEN_SHAPE.exec(token);
    if (!match) return "expired";
    const [, id, expiresAtText, mac] = match as unknown as [string, string, string, string];
    const expiresAt = Number(expiresAtText);
    // A genuine token never expires further out than CHALLENGE_TTL_MS from now.
    if (expiresAt <= now || expiresAt > now + CHALLENGE_TTL_MS) return "expired";
    const answer = parseAnswer(typedAnswer);
    if (answer === null) return "wrong";
    const expected = Buffer.from(this.mac(id, expiresAt, answer));
    if (!timingSafeEqual(expected, Buffer.from(mac))) return "wrong";
    const counted = await this.answers.take(id);
    return counted === "allowed" ? "correct" : counted === "limited" ? "expired" : "unavailable";
  }

  private mac(id: string, expiresAt: number, answer: number): string {
    return createHmac("sha256", this.secret).update(`nojs-challenge:${id}:${expiresAt}:${answer}`).digest("base64url");
  }
}

/** "7", " sete ", "Três" → the number; anything else → null. */
export function parseAnswer(typed: string): number | null {
  const normalized = typed
    .trim()
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "");
  if (/^\d{1,3}$/.test(normalized)) return Number(normalized);
  const index = NUMBER_WORDS.findIndex((word) => word.normalize("NFD").replace(/[\u0300-\u036f]/g, "") === normalized);
  if (index !== -1) return index;
  return WORD_ALIASES[normalized] ?? null;
}
