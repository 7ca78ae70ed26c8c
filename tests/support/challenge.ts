const WORDS = ["zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove", "dez"];

/** Answers "Quanto é sete mais dois?" the way a visitor would: 9. */
export function solveQuestion(question: string): number {
  const match = /Quanto é (\S+) (mais|menos) (\S+)\?/.exec(question);
  if (!match) throw new Error(`not a question: ${question}`);
  const [, left, operator, right] = match;
  const a = WORDS.indexOf(left!);
  const b = WORDS.indexOf(right!);
  if (a < 0 || b < 0) throw new Error(`unknown number in: ${question}`);
  return operator === "mais" ? a + b : a - b;
}
