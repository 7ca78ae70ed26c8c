import { randomBytes } from "node:crypto";
import type { Limit, SharedState } from "~/state/shared-state.server";
import type { Question } from "./result";
import { MAC_PATTERN, type SignedTokens } from "./signed-tokens.server";

export const QUESTION_TTL_MS = 10 * 60 * 1000;
/**
 * A rendered page and its question are shared by the visitors of one second: a handful, never a bot's supply. Only a
 * relay spends one, so answers for listed addresses leave them to the render's visitors.
 */
const ANSWERS_PER_QUESTION = 3;
/** A script solves the question in a line: however many it solves, this is all it relays through it (decision 015). */
export const QUESTION_RELAYS_PER_MINUTE = 20;
/**
 * What one sender's address (IPv4, or IPv6 /64) may relay of it, and what its network (IPv4 the same address, IPv6
 * the /48 a carrier or a tunnel broker hands one subscriber) may relay in all: closing the question for everyone takes
 * QUESTION_RELAYS_PER_MINUTE ÷ the networks' minute share, and holding it closed for an hour
 * 60 × QUESTION_RELAYS_PER_MINUTE ÷ their hour share (docs/signup.md, "Limits").
 */
export const QUESTION_RELAYS_PER_ADDRESS = { perMinute: 2, perHour: 10 } as const;
export const QUESTION_RELAYS_PER_NETWORK = { perMinute: 4, perHour: 20 } as const;

type Verdict = "allowed" | "limited" | "unavailable";

/** Who sent an answer, as its budgets count it: the sender's address and its network (clientKey, networkKey). */
type Sender = { address: string; network: string };

/**
 * The question's relays, for the whole deployment (while Redis is away, none): its sender's address's share of them,
 * its network's, and the deployment's budget. Only a relay spends them, so answers that relay nothing new (an address
 * already listed) can close them neither for the sender's neighbours nor for everyone; every answer asks whether they
 * are left first, so a listed address is refused exactly when a new one is, and a refusal tells nobody who is listed.
 */
export function questionRelayBudget(state: SharedState) {
  const limit = (name: string, points: number, durationSeconds: number) =>
    state.limit({ name, points, durationSeconds, whenAway: "refuse" });
  const shares = (name: string, { perMinute, perHour }: { perMinute: number; perHour: number }) => [
    limit(`question-relays-per-${name}`, perMinute, 60),
    limit(`question-relays-per-${name}-hour`, perHour, 60 * 60),
  ];
  const perAddress = shares("address", QUESTION_RELAYS_PER_ADDRESS);
  const perNetwork = shares("network", QUESTION_RELAYS_PER_NETWORK);
  const deployment = limit("question-relays", QUESTION_RELAYS_PER_MINUTE, 60);
  const keyed = ({ address, network }: Sender): Array<[Limit, string]> => [
    ...perAddress.map((budget): [Limit, string] => [budget, address]),
    ...perNetwork.map((budget): [Limit, string] => [budget, network]),
    [deployment, "all"],
  ];
  return {
    async open(sender: Sender): Promise<Verdict> {
      for (const [budget, key] of keyed(sender)) {
        const verdict = await budget.peek(key);
        if (verdict !== "allowed") return verdict;
      }
      return "allowed";
    },
    async spend(sender: Sender): Promise<Verdict> {
      for (const [budget, key] of keyed(sender)) {
        const { verdict } = await budget.take(key);
        if (verdict !== "allowed") return verdict;
      }
      return "allowed";
    },
  };
}

const NUMBER_WORDS =
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
    const [{ text, answer }] = this.sumsOf(id) as [Sum];
    return { text, token: `${id}.${expiresAt}.${this.tokens.mac("question", [id, expiresAt, answer])}` };
  }

  /**
   * The question a live token of ours asks, said again (a page rendered without JavaScript after an invalid e-mail
   * shows the one the visitor answered), a page from before a secret's rotation included; null for any other token.
   */
  restate(token: string, now = Date.now()): Question | null {
    const parsed = this.live(token, now);
    if (!parsed) return null;
    const { id, expiresAt, mac } = parsed;
    const sums = this.sumsOf(id);
    const signer = this.tokens.signerOf("question", (secret) => [id, expiresAt, sums[secret]!.answer], mac);
    return signer === -1 ? null : { text: sums[signer]!.text, token };
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
   * The sum a question's id asks, drawn from it under the secret (unguessable without it), then under the previous
   * one during a rotation: any instance can say again what a token asked, and nothing is kept.
   */
  private sumsOf(id: string): Sum[] {
    return this.tokens.macsUnderEach("question", ["sum", id]).map((mac) => {
      const [first, second, third] = Buffer.from(mac, "base64url");
      const left = 1 + (first! % 9);
      const right = 1 + (second! % 9);
      const subtract = third! % 2 === 0 && left > right;
      const text = `Quanto é ${NUMBER_WORDS[left]} ${subtract ? "menos" : "mais"} ${NUMBER_WORDS[right]}?`;
      return { text, answer: subtract ? left - right : left + right };
    });
  }

  /** Whether a checked question has a correct answer left, spending none: only a relay spends one (spendAnswer). */
  async answerLeft(token: string): Promise<QuestionVerdict> {
    return answerVerdict(await this.answers.peek(parseToken(token)!.id));
  }

  /** Takes one of a checked question's few correct answers; `expired` once they are spent. */
  async spendAnswer(token: string): Promise<QuestionVerdict> {
    return answerVerdict((await this.answers.take(parseToken(token)!.id)).verdict);
  }
}

const answerVerdict = (verdict: Verdict): QuestionVerdict =>
  verdict === "allowed" ? "correct" : verdict === "limited" ? "expired" : "unavailable";

type Sum = { text: string; answer: number };

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
