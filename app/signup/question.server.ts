import { randomBytes } from "node:crypto";
import type { Limit, SharedState } from "~/state/shared-state.server";
import type { Question } from "./result";
import { MAC_PATTERN, type SignedTokens } from "./signed-tokens.server";

export const QUESTION_TTL_MS = 10 * 60 * 1000;
/** A rendered page and its question are shared by the visitors of one second: a handful, never a bot's supply. */
const ANSWERS_PER_QUESTION = 3;
/** A script solves the question in a line: however many it solves, this is all it gets through (decision 015). */
export const QUESTION_RELAYS_PER_MINUTE = 10;
/** One address's share of that budget a minute: a script at one address cannot shut the question for everyone. */
export const QUESTION_RELAYS_PER_ADDRESS_PER_MINUTE = 3;

/**
 * The question's relays, for the whole deployment (while Redis is away, none): the sender's address (clientKey) spends
 * its share first, so an address past it spends nothing of the budget everybody else shares.
 */
export function questionRelayBudget(state: SharedState) {
  const perAddress = state.limit({
    name: "question-relays-per-address",
    points: QUESTION_RELAYS_PER_ADDRESS_PER_MINUTE,
    durationSeconds: 60,
    whenAway: "refuse",
  });
  const overall = state.limit({
    name: "question-relays",
    points: QUESTION_RELAYS_PER_MINUTE,
    durationSeconds: 60,
    whenAway: "refuse",
  });
  return {
    async take(address: string): Promise<"allowed" | "limited" | "unavailable"> {
      const { verdict } = await perAddress.take(address);
      return verdict === "allowed" ? (await overall.take("all")).verdict : verdict;
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
    const left = 1 + Math.floor(Math.random() * 9);
    const right = 1 + Math.floor(Math.random() * 9);
    const subtract = Math.random() < 0.5 && left > right;
    const answer = subtract ? left - right : left + right;
    const text = `Quanto é ${NUMBER_WORDS[left]} ${subtract ? "menos" : "mais"} ${NUMBER_WORDS[right]}?`;
    const id = (this.epoch + randomBytes(9).toString("base64url")).slice(0, 12);
    const expiresAt = now + QUESTION_TTL_MS;
    return { text, token: `${id}.${expiresAt}.${this.tokens.mac("question", [id, expiresAt, answer])}` };
  }

  /** Against the token's MAC first: forged ids never reach the bookkeeping. */
  async check(token: string, typedAnswer: string, now = Date.now()): Promise<QuestionVerdict> {
    const match = TOKEN_SHAPE.exec(token);
    if (!match) return "expired";
    const [, id, expiresAtText, mac] = match as unknown as [string, string, string, string];
    if (!id.startsWith(this.epoch)) return "expired";
    const expiresAt = Number(expiresAtText);
    // A genuine token never expires further out than QUESTION_TTL_MS from now.
    if (expiresAt <= now || expiresAt > now + QUESTION_TTL_MS) return "expired";
    const answer = parseAnswer(typedAnswer);
    if (answer === null || !this.tokens.verify("question", [id, expiresAt, answer], mac)) return "wrong";
    const { verdict } = await this.answers.take(id);
    return verdict === "allowed" ? "correct" : verdict === "limited" ? "expired" : "unavailable";
  }
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
