import { parseAnswer } from "~/signup/question.server";

/** Answers "Quanto é sete mais dois?" the way a visitor would: 9. */
export function solveQuestion(question: string): number {
  const match = /Quanto é (\S+) (mais|menos) (\S+)\?/.exec(question);
  if (!match) throw new Error(`not a question: ${question}`);
  const [, left, operator, right] = match;
  const a = parseAnswer(left!);
  const b = parseAnswer(right!);
  if (a === null || b === null) throw new Error(`unknown number in: ${question}`);
  return operator === "mais" ? a + b : a - b;
}
