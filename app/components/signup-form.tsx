import { Form, useActionData, useNavigation } from "@remix-run/react";
import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { ErrorBoundary } from "react-error-boundary";
import { content, EMAIL_INPUT_ID, SIGNUP_SECTION_ID } from "~/content";
import { FIELD, type FormTokens, type Notice, type SignupResult } from "~/signup/result";
import { BotTrapFields } from "./bot-trap-fields";
import type { BootTrigger } from "./deferred-boot";
import { FieldError } from "./field-error";
import { QUESTION_ANSWER_ID, QuestionField } from "./question-field";

/** hCaptcha and the toasts: loaded once the page has booted, which waits for the visitor to come near the form. */
const SignupEnhancements = lazy(() => import("./signup-enhancements"));
/**
 * How long the captcha may take to appear once the page is hydrated (its chunk, then hCaptcha's script, retries
 * included) before the question is offered in its place: a file that never arrives must not leave the visitor
 * reading "Carregando…" with no way to sign up.
 */
export const CAPTCHA_PATIENCE_MS = 10_000;

const FORM_ID = "signup-form";
const EMAIL_ERROR_ID = "email-error";
/** The captcha's place in the form: what a refused captcha marks and focuses (hCaptcha's widget is its maker's). */
const CAPTCHA_FIELD_ID = "captcha-field";
const CAPTCHA_ERROR_ID = "captcha-error";
const SUBMIT_HINT_ID = "submit-hint";

const { messages } = content;
/** The refusals about one field: the e-mail, or the proof (the captcha, or the question in its place). */
const REFUSALS: ReadonlyArray<[Notice, "email" | "proof"]> = [
  [messages.invalidEmail, "email"],
  [messages.captchaMissing, "proof"],
  [messages.questionMissing, "proof"],
  [messages.questionWrong, "proof"],
  [messages.questionExpired, "proof"],
];

/** Which field a result refuses, told by its notice: the words of content.ts, which the server sends. */
const refusedField = (result: SignupResult | undefined) =>
  result && !result.ok
    ? REFUSALS.find(
        ([notice]) => notice.title === result.notice.title && notice.description === result.notice.description,
      )?.[1]
    : undefined;

/**
 * The page's scripts start when the form is about a screen away (400 px), when a field of it is focused, or when the
 * hero's call to action is followed (decision 018).
 */
export const SIGNUP_BOOT: BootTrigger = {
  near: FORM_ID,
  margin: "400px",
  link: SIGNUP_SECTION_ID,
  field: EMAIL_INPUT_ID,
};

/**
 * Where a post without JavaScript lands. No fragment: a page whose address names an element ignores `autofocus`, which
 * takes the cursor, and the view, to the refused field or to the notice. After a first post the page is at this
 * address, not the campaign link's: the action carries the campaign it was counted for.
 */
const formAction = (campaign: string | undefined) => `?index${campaign ? `&${campaign}` : ""}`;

/** `hydrated`'s store: false in the server's render and while hydrating, true once React runs in the browser. */
const subscribe = () => () => {};
const inBrowser = () => true;
const onServer = () => false;

export type SignupFormProps = FormTokens & { captchaSiteKey: string };

export function SignupForm({ captchaSiteKey, botTrap, question }: SignupFormProps) {
  const { signup } = content;
  const result = useActionData<SignupResult>();
  const navigation = useNavigation();
  const hydrated = useSyncExternalStore(subscribe, inBrowser, onServer);
  const formRef = useRef<HTMLFormElement>(null);
  /** The result this page was rendered with (a post without JavaScript): shown in place, never as a toast. */
  const [resultInPlace] = useState(result);
  const newResult = result === resultInPlace ? undefined : result;
  const [captchaToken, setCaptchaToken] = useState("");
  const [captchaUnavailable, setCaptchaUnavailable] = useState(false);
  const [captchaShown, setCaptchaShown] = useState(false);
  /** The toasts are on the page: results are announced there, not in place. */
  const [toasting, setToasting] = useState(false);
  /** The visitor asked for the question instead of the captcha (hCaptcha shuts out many screen-reader users). */
  const [questionChosen, setQuestionChosen] = useState(false);

  const submitting = navigation.state === "submitting" && navigation.formMethod === "POST";
  // The question on screen is the last one the server sent: a refusal that leaves it good (an invalid e-mail) sends
  // none, and the answer typed stays in its field.
  const [currentQuestion, setCurrentQuestion] = useState(result?.question ?? question);
  if (result?.question && result.question.token !== currentQuestion.token) setCurrentQuestion(result.question);
  const showQuestion = captchaUnavailable || questionChosen;
  // Without JavaScript the button must stay usable: it is only gated once hydrated.
  const canSubmit = !hydrated || (!submitting && (captchaToken !== "" || showQuestion));
  // Kept by the server's render too (shown where scripts run), so that 'Cadastrar' does not move as the page hydrates.
  const waitingForCaptcha = !showQuestion && (!hydrated || (!submitting && captchaToken === ""));

  // The latest result's refusal marks its field until the next result (GOV.UK's error message pattern). The proof is
  // the question where it is on screen: without JavaScript it always is.
  const refused = refusedField(result);
  const questionOnScreen = showQuestion || !hydrated;
  const emailError = refused === "email" ? result?.notice.description : undefined;
  const proofError = refused === "proof" ? result?.notice.description : undefined;
  const answerError = questionOnScreen ? proofError : undefined;
  // The server's render has both: the captcha's place where scripts run, the question where they do not.
  const captchaError = showQuestion ? undefined : proofError;
  const refusedFieldId =
    refused === "email"
      ? EMAIL_INPUT_ID
      : refused === "proof" && questionOnScreen
        ? QUESTION_ANSWER_ID
        : CAPTCHA_FIELD_ID;

  // Signed up: the fields start empty for the next address (hidden and controlled ones keep their values). Not on
  // hydration: what the visitor typed since the page arrived stays.
  useEffect(() => {
    if (newResult?.ok) formRef.current?.reset();
  }, [newResult]);

  useEffect(() => {
    if (!hydrated || captchaShown) return;
    const timer = setTimeout(() => setCaptchaUnavailable(true), CAPTCHA_PATIENCE_MS);
    return () => clearTimeout(timer);
  }, [hydrated, captchaShown]);

  // A refusal takes the cursor to the field it is about, in the middle of the screen: a field left at its edge would sit
  // under the toast. Without JavaScript, the field's `autoFocus` does.
  useEffect(() => {
    if (!refusedField(newResult)) return;
    const field = document.getElementById(refusedFieldId);
    field?.scrollIntoView({ block: "center" });
    field?.focus({ preventScroll: true });
  }, [newResult, refusedFieldId]);

  // The control that asked for the question is gone: the cursor goes where the answer is typed.
  useEffect(() => {
    if (questionChosen) document.getElementById(QUESTION_ANSWER_ID)?.focus();
  }, [questionChosen]);

  const chooseQuestion = () => {
    // The answer is the proof now (the server prefers a captcha token when both come).
    setCaptchaToken("");
    setQuestionChosen(true);
  };
  // Holds the widget's place so nothing shifts when it appears.
  // Rendered by the server too, shown only where scripts run (its place is `js-only`), so that nothing moves when the
  // page hydrates.
  const captchaPlaceholder = showQuestion ? null : (
    <p className="flex min-h-[78px] items-center text-sm text-ink-600" aria-live="polite">
      {signup.captchaLoading}
    </p>
  );

  return (
    <Form
      ref={formRef}
      id={FORM_ID}
      action={formAction(result?.campaign)}
      method="post"
      noValidate
      preventScrollReset
      className="scroll-mt-4 space-y-5 rounded-2xl border border-slate-200 bg-slate-50 p-6 shadow-sm sm:p-8"
      aria-busy={submitting}
    >
      <BotTrapFields fields={result?.botTrap ?? botTrap} label={signup.botTrapLabel} />
      <div>
        <label htmlFor={EMAIL_INPUT_ID} className="block font-bold">
          {signup.emailLabel}
        </label>
        <input
          id={EMAIL_INPUT_ID}
          name={FIELD.email}
          type="email"
          autoComplete="email"
          inputMode="email"
          required
          maxLength={254}
          placeholder={signup.emailPlaceholder}
          defaultValue={result && !result.ok ? result.email : ""}
          // Without JavaScript the refused field takes the cursor as the answer page loads.
          // eslint-disable-next-line jsx-a11y/no-autofocus
          autoFocus={Boolean(emailError)}
          aria-invalid={emailError ? true : undefined}
          aria-describedby={emailError ? EMAIL_ERROR_ID : undefined}
          className="mt-2 block w-full rounded-lg border border-slate-500 bg-white px-4 py-3 text-base placeholder:text-slate-500"
        />
        {emailError ? <FieldError id={EMAIL_ERROR_ID} text={emailError} /> : null}
      </div>

      <input type="hidden" name={FIELD.captchaToken} value={captchaToken} />
      <div
        id={CAPTCHA_FIELD_ID}
        className={showQuestion ? "hidden" : "js-only"}
        role={captchaError ? "group" : undefined}
        aria-label={captchaError ? signup.questionLegend : undefined}
        aria-invalid={captchaError ? true : undefined}
        aria-describedby={captchaError ? CAPTCHA_ERROR_ID : undefined}
        tabIndex={-1}
        // A post answered before the scripts arrived: the cursor goes here as the answer page loads.
        // eslint-disable-next-line jsx-a11y/no-autofocus
        autoFocus={Boolean(captchaError)}
      >
        {captchaError ? <FieldError id={CAPTCHA_ERROR_ID} text={captchaError} /> : null}
        {hydrated ? (
          // Its chunk failing to load (a 404 after a redeploy, a network error) leaves the question, the e-mail kept.
          <ErrorBoundary fallback={null} onError={() => setCaptchaUnavailable(true)}>
            <Suspense fallback={captchaPlaceholder}>
              <SignupEnhancements
                siteKey={captchaSiteKey}
                result={newResult}
                onToken={setCaptchaToken}
                onMounted={() => setToasting(true)}
                onShown={() => setCaptchaShown(true)}
                onUnavailable={() => setCaptchaUnavailable(true)}
                hidden={showQuestion}
              />
            </Suspense>
          </ErrorBoundary>
        ) : (
          captchaPlaceholder
        )}
      </div>
      {showQuestion ? null : (
        <button
          type="button"
          onClick={chooseQuestion}
          className="js-only py-1 text-left text-sm font-bold text-brand-700 underline underline-offset-4 hover:text-brand-900"
        >
          {signup.questionInstead}
        </button>
      )}
      {showQuestion ? (
        <QuestionField key={currentQuestion.token} question={currentQuestion} error={answerError} />
      ) : null}
      <noscript>
        <QuestionField question={currentQuestion} answer={result?.answer} error={answerError} />
      </noscript>

      {/* A post without JavaScript gets no toast: its outcome is rendered here by the server, and stays through
          hydration until the next result. So does every result while the toasts could not load. */}
      {result && (!newResult || !toasting) ? (
        <div
          role={result.ok ? "status" : "alert"}
          tabIndex={-1}
          // Without JavaScript a result about no field takes the cursor here, as the answer page loads.
          // eslint-disable-next-line jsx-a11y/no-autofocus
          autoFocus={!refused}
          className={`rounded-lg border p-4 ${result.ok ? "border-brand-200 bg-brand-50 text-brand-900" : "border-red-300 bg-red-50 text-red-900"}`}
        >
          <p className="font-bold">{result.notice.title}</p>
          <p>{result.notice.description}</p>
        </div>
      ) : null}

      {waitingForCaptcha ? (
        <p id={SUBMIT_HINT_ID} className="js-only text-sm text-ink-600">
          {signup.submitHint}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={!canSubmit}
        // Only once hydrated: without JavaScript the button is never held back.
        aria-describedby={hydrated && waitingForCaptcha ? SUBMIT_HINT_ID : undefined}
        className="flex min-h-12 w-full items-center justify-center rounded-xl border border-transparent bg-brand-700 px-6 py-3 text-base font-bold text-white transition hover:bg-brand-800 disabled:cursor-not-allowed disabled:bg-slate-400"
      >
        {submitting ? signup.submitting : signup.submit}
      </button>
      <p className="text-sm text-ink-600">{signup.privacy}</p>
    </Form>
  );
}
