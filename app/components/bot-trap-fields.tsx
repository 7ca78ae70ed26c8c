import type { BotTrapFields as Fields } from "~/signup/result";

/**
 * The bot trap's hidden fields: hidden from people and from assistive technology; bots that fill every field fall in,
 * and the signed time tells a form sent faster than a person could. `hidden`, not a style: the form's spacing
 * (`space-y-*`) skips `[hidden]` children only, and counted this one as the first, an empty band at the top.
 */
export function BotTrapFields({ fields, label }: { fields: Fields; label: string }) {
  const { nameField, validFromField, validFrom } = fields;
  return (
    <div id={`${nameField}_wrap`} hidden>
      <label htmlFor={nameField}>{label}</label>
      <input id={nameField} name={nameField} type="text" defaultValue="" autoComplete="off" tabIndex={-1} />
      <label htmlFor={validFromField}>{label}</label>
      <input
        id={validFromField}
        name={validFromField}
        type="text"
        value={validFrom}
        readOnly
        autoComplete="off"
        tabIndex={-1}
      />
    </div>
  );
}
