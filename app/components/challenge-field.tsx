import { content } from "~/content";
import { FIELD, type Challenge } from "~/signup-result";

/** The fallback question that stands in for hCaptcha when it cannot run. */
export function ChallengeField({ challenge }: { challenge: Challenge }) {
  const { signup } = content;
  return (
    <fieldset className="rounded-xl border border-slate-300 p-4">
      <legend className="px-1 text-sm font-semibold">{signup.challengeLegend}</legend>
      <input type="hidden" name={FIELD.challengeToken} value={challenge.token} />
      <label htmlFor="challenge-answer" className="block font-medium">
        {challenge.question}
      </label>
      <input
        id="challenge-answer"
        name={FIELD.challengeAnswer}
        type="text"
        inputMode="text"
        autoComplete="off"
        required
        aria-describedby="challenge-hint"
        className="mt-2 block w-full rounded-lg border border-slate-400 px-3 py-2 text-base"
      />
      <p id="challenge-hint" className="mt-1 text-sm text-ink-600">
        {signup.challengeHint}
      </p>
    </fieldset>
  );
}
