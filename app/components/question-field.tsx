import { content } from "~/content";
import { FIELD, type Question } from "~/signup/result";
import { FieldError } from "./field-error";

/** The answer's field: the form puts the cursor there when the visitor swaps the captcha for the question. */
export const QUESTION_ANSWER_ID = "question-answer";

const ERROR_ID = "question-answer-error";

/**
 * The fallback question that stands in for hCaptcha when it cannot run, or cannot be solved; `error`, the refusal of
 * the last answer, beside it, and the cursor in it.
 */
export function QuestionField({ question, answer, error }: { question: Question; answer?: string; error?: string }) {
  const { signup } = content;
  return (
    <fieldset className="rounded-xl border border-slate-500 p-4">
      <legend className="px-1 text-sm font-bold">{signup.questionLegend}</legend>
      <input type="hidden" name={FIELD.questionToken} value={question.token} />
      <label htmlFor={QUESTION_ANSWER_ID} className="block">
        {question.text}
      </label>
      {error ? <FieldError id={ERROR_ID} text={error} /> : null}
      <input
        id={QUESTION_ANSWER_ID}
        name={FIELD.questionAnswer}
        type="text"
        inputMode="text"
        autoComplete="off"
        defaultValue={answer}
        required
        // Without JavaScript the refused field takes the cursor as the answer page loads.
        // eslint-disable-next-line jsx-a11y/no-autofocus
        autoFocus={Boolean(error)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${ERROR_ID} question-hint` : "question-hint"}
        className="mt-2 block w-full rounded-lg border border-slate-500 px-3 py-2 text-base"
      />
      <p id="question-hint" className="mt-1 text-sm text-ink-600">
        {signup.questionHint}
      </p>
    </fieldset>
  );
}
