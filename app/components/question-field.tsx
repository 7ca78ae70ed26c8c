import { content } from "~/content";
import { FIELD, type Question } from "~/signup/result";

/** The answer's field: the form puts the cursor there when the visitor swaps the captcha for the question. */
export const QUESTION_ANSWER_ID = "question-answer";

/** The fallback question that stands in for hCaptcha when it cannot run, or cannot be solved. */
export function QuestionField({ question, answer }: { question: Question; answer?: string }) {
  const { signup } = content;
  return (
    <fieldset className="rounded-xl border border-slate-300 p-4">
      <legend className="px-1 text-sm font-bold">{signup.questionLegend}</legend>
      <input type="hidden" name={FIELD.questionToken} value={question.token} />
      <label htmlFor={QUESTION_ANSWER_ID} className="block">
        {question.text}
      </label>
      <input
        id={QUESTION_ANSWER_ID}
        name={FIELD.questionAnswer}
        type="text"
        inputMode="text"
        autoComplete="off"
        defaultValue={answer}
        required
        aria-describedby="question-hint"
        className="mt-2 block w-full rounded-lg border border-slate-400 px-3 py-2 text-base"
      />
      <p id="question-hint" className="mt-1 text-sm text-ink-600">
        {signup.questionHint}
      </p>
    </fieldset>
  );
}
