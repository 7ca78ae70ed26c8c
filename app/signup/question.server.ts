import { randomBytes } from "node:crypto";
import type { Limit, SharedState } from "~/state/shared-state.server";
import type { Question } from "./result";
import { MAC_PATTERN, type SignedTokens } from "./signed-tokens.server";

export const QUESTION_TTL_MS = 10 * 60 * 1000;
/** A rendered page and its question are shared by the visitors of one second: a handful, never a bot's supply. */
const ANSWERS_PER_QUESTION = 3;
/** A script solves the question in a line: however many it solves, this is all it relays through it (decision 015). */
export const QUESTION_RELAYS_PER_MINUTE = 20;
/**
 * What one sender's address (IPv4, or IPv6 /64) may relay of it: closing the question for everyone takes
 * QUESTION_RELAYS_PER_MINUTE ÷ the first addresses a minute, and holding it closed for an hour
 * 60 × QUESTION_RELAYS_PER_MINUTE ÷ the second (docs/signup.md, "Limits").
 */
export const QUESTION_RELAYS_PER_ADDRESS = { perMinute: 2, perHour: 10 } as const;

type Verdict = "allowed" | "limited" | "unavailable";

/**
 * The question's relays, for the whole deployment (while Redis is away, none): its sender's address's share of them
 * and the deployment's budget. Only a relay spends them, so answers that relay nothing new (an address already
 * listed) can close them neither for the sender's neighbours nor for everyone; every answer asks whether they are
 * left first, so a listed address is refused exactly when a new one is, and a refusal tells nobody who is listed.
 */
export function questionRelayBudget(state: SharedState) {
  const limit = (name: string, points: number, durationSeconds: number) =>
    state.limit({ name, points, durationSeconds, whenAway: "refuse" });
  const perMinute = limit("question-relays-per-address", QUESTION_RELAYS_PER_ADDRESS.perMinute, 60);
  const perHour = limit("question-relays-per-address-hour", QUESTION_RELAYS_PER_ADDRESS.perHour, 60 * 60);
  const deployment = limit("question-relays", QUESTION_RELAYS_PER_MINUTE, 60);
  const keyed = (address: string): Array<[Limit, string]> => [
    [perMinute, address],
    [perHour, address],
    [deployment, "all"],
  ];
  return {
    async open(address: string): Promise<Verdict> {
      for (const [budget, key] of keyed(address)) {
        const verdict = await budget.peek(key);
        if (verdict !== "allowed") return verdict;
      }
      return "allowed";
    },
    async spend(address: string): Promise<Verdict> {
      for (const [budget, key] of keyed(address)) {
        const { verdict } = await budget.take(key);
        if (verdict !== "allowed") return verdict;
      }
      return "allowed";
    },
  };
}

export const NUMBER_WORDS =
  "zero um dois três quatro cinco seis sete oito nove dez onze doze treze catorze quinze dezesseis dezessete dezoito dezenove vinte".split(
    " ",
  );
/** Spellings a visitor may type besides the canonical word. */
const WORD_ALIASES: Record<string, number> = { uma: 1, duas: 2, quatorze: 14 };

/** The one spelling of a token: 12-character id (epoch and random part), expiry in milliseconds (13 digits), MAC. */
const TOKEN_SHAPE = new RegExp(`^([A-Za-z0-9_-]{12})\\.([1-9]\\d{12})\\.(${MAC_PATTERN})$`);

/** `unavailable`: the shared count of answers could not be asked (Redis away), so nothing is accepted. */
type QuestionVerdict = "correct" | "wrong" | "expired" | "unavailable";

/** Stateless but for the shared count of correct answers per id, whose epoch a restart ends (decision 011). */
export class FallbackQuestions {
  constructor(
    private readonly tokens: SignedTokens,
    private readonly answers: Limit,
    private readonly epoch: string,
  ) {}

  /** Correct answers counted in `state`, for every instance; while Redis is away none is accepted. */
  static create(tokens: SignedTokens, state: SharedState): FallbackQuestions {
    const answers = state.limit({
      name: "question-answers",
      points: ANSWERS_PER_QUESTION,
      durationSeconds: QUESTION_TTL_MS / 1000,
      whenAway: "refuse",
    });
    return new FallbackQuestions(tokens, answers, state.epoch);
  }

  ask(now = Date.now()): Question {
    const id = (this.epoch + randomBytes(9).toString("base64url")).slice(0, 12);
    const expiresAt = now + QUESTION_TTL_MS;
    const { text, answer } = this.sumOf(id);
    return { text, token: `${id}.${expiresAt}.${this.tokens.mac("question", [id, expiresAt, answer])}` };
  }

  /**
   * The question a live token of ours asks, said again (a page rendered without JavaScript after an invalid e-mail
   * shows the one the visitor answered); null for any other token.
   */
  restate(token: string, now = Date.now()): Question | null {
    const parsed = this.live(token, now);
    if (!parsed) return null;
    const { text, answer } = this.sumOf(parsed.id);
    return this.tokens.verify("question", [parsed.id, parsed.expiresAt, answer], parsed.mac) ? { text, token } : null;
  }

  /** Against the token's MAC and expiry alone: nothing is counted, so forged ids never reach the bookkeeping. */
  check(token: string, typedAnswer: string, now = Date.now()): "correct" | "wrong" | "expired" {
    const parsed = this.live(token, now);
    if (!parsed) return "expired";
    const { id, expiresAt, mac } = parsed;
    const answer = parseAnswer(typedAnswer);
    if (answer === null || !this.tokens.verify("question", [id, expiresAt, answer], mac)) return "wrong";
    return "correct";
  }

  /** A token of this epoch that has not expired: a genuine one never expires further out than QUESTION_TTL_MS. */
  private live(token: string, now: number) {
    const parsed = parseToken(token);
    if (!parsed || !parsed.id.startsWith(this.epoch)) return null;
    return parsed.expiresAt > now && parsed.expiresAt <= now + QUESTION_TTL_MS ? parsed : null;
  }

  /**
   * The sum a question's id asks, drawn from it under the secret (unguessable without it): any instance can say
   * again what a token asked, and nothing is kept.
   */
  private sumOf(id: string): { text: string; answer: number } {
    const [first, second, third] = Buffer.from(this.tokens.mac("question", ["sum", id]), "base64url");
    const left = 1 + (first! % 9);
    const right = 1 + (second! % 9);
    const subtract = third! % 2 === 0 && left > right;
    const text = `Quanto é ${NUMBER_WORDS[left]} ${subtract ? "menos" : "mais"} ${NUMBER_WORDS[right]}?`;
    return { text, answer: subtract ? left - right : left + right };
  }

  /** Takes one of a checked question's few correct answers; `expired` once they are spent. */
  async spendAnswer(token: string): Promise<QuestionVerdict> {
    const { verdict } = await this.answers.take(parseToken(token)!.id);
    return verdict === "allowed" ? "correct" : verdict === "limited" ? "expired" : "unavailable";
  }
}

function parseToken(token: string): { id: string; expiresAt: number; mac: string } | null {
  const match = TOKEN_SHAPE.exec(token);
  if (!match) return null;
  const [, id, expiresAt, mac] = match as unknown as [string, string, string, string];
  return { id, expiresAt: Number(expiresAt), mac };
}

const withoutAccents = (text: string) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "");

/** "7", " sete ", "Três" → the number; anything else → null. */
export function parseAnswer(typed: string): number | null {
  const normalized = withoutAccents(typed.trim().toLowerCase());
  if (/^\d{1,3}$/.test(normalized)) return Number(normalized);
  const index = NUMBER_WORDS.findIndex((word) => withoutAccents(word) === normalized);
  if (index !== -1) return index;
  return WORD_ALIASES[normalized] ?? null;
}
