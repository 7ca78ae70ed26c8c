import type { HoneypotInputProps } from "remix-utils/honeypot/server";

/**
 * remix-utils' bot-trap fields, rendered here because its own component
 * writes autocomplete="nope", which HTML does not allow. Hidden from people
 * and from assistive technology; bots that fill every field fall in.
 */
export function HoneypotFields({ fields, label }: { fields: HoneypotInputProps; label: string }) {
  const { nameFieldName, validFromFieldName, encryptedValidFrom } = fields;
  return (
    <div id={`${nameFieldName}_wrap`} style={{ display: "none" }} aria-hidden="true">
      <label htmlFor={nameFieldName}>{label}</label>
      <input id={nameFieldName} name={nameFieldName} type="text" defaultValue="" autoComplete="off" tabIndex={-1} />
      {validFromFieldName && encryptedValidFrom ? (
        <>
          <label htmlFor={validFromFieldName}>{label}</label>
          <input
            id={validFromFieldName}
            name={validFromFieldName}
            type="text"
            value={encryptedValidFrom}
            readOnly
            autoComplete="off"
            tabIndex={-1}
          />
        </>
      ) : null}
    </div>
  );
}
