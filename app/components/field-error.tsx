import { content } from "~/content";

/** A refusal's message beside the field it is about, which names it in `aria-describedby` (GOV.UK's error message). */
export function FieldError({ id, text }: { id: string; text: string }) {
  return (
    <p id={id} className="mt-2 font-bold text-red-700">
      <span className="sr-only">{content.signup.errorPrefix} </span>
      {text}
    </p>
  );
}
