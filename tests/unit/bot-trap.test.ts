import { describe, expect, it } from "vitest";
import { BotTrap, FORM_MAX_AGE_MS } from "~/utils/honeypot.server";

const SECRET = "bot-trap-secret-0123456789abcdef0123";
const MIN_SUBMIT_MS = 1_500;
const RENDERED_AT = Date.parse("2026-11-22T12:00:00Z");

function postedForm(trap: BotTrap, renderedAt = RENDERED_AT, overrides: Record<string, string> = {}): FormData {
  const fields = trap.inputProps(renderedAt);
  const form = new FormData();
  form.set(fields.nameFieldName, "");
  form.set(fields.validFromFieldName!, fields.encryptedValidFrom);
  for (const [name, value] of Object.entries(overrides)) form.set(name, value);
  return form;
}

describe("the bot trap", () => {
  const trap = new BotTrap(SECRET, MIN_SUBMIT_MS);

  it("lets a person through between the minimum time and the maximum age", () => {
    expect(trap.inspect(postedForm(trap), RENDERED_AT + MIN_SUBMIT_MS)).toEqual({ kind: "human" });
    expect(trap.inspect(postedForm(trap), RENDERED_AT + FORM_MAX_AGE_MS)).toEqual({ kind: "human" });
  });

  it("answers a bot as if it succeeded: too fast, honeypot filled, fields missing", () => {
    expect(trap.inspect(postedForm(trap), RENDERED_AT + 200)).toEqual({ kind: "bot", why: "sent too fast" });
    expect(trap.inspect(postedForm(trap, RENDERED_AT, { name__confirm: "Robô" }), RENDERED_AT + 5_000)).toEqual({
      kind: "bot",
      why: "honeypot filled",
    });
    expect(trap.inspect(new FormData(), RENDERED_AT)).toEqual({ kind: "bot", why: "honeypot fields missing" });
  });

  it("calls a form older than the maximum age stale, never a silent success", () => {
    expect(trap.inspect(postedForm(trap), RENDERED_AT + FORM_MAX_AGE_MS + 1)).toEqual({
      kind: "stale",
      why: "form too old",
    });
  });

  it("calls a timestamp made with another secret (a restart without a kept secret) stale", () => {
    const before = new BotTrap("another-secret-0123456789abcdef01234", MIN_SUBMIT_MS);
    expect(trap.inspect(postedForm(before), RENDERED_AT + 5_000)).toEqual({
      kind: "stale",
      why: "timestamp unreadable",
    });
    expect(trap.inspect(postedForm(trap, RENDERED_AT, { from__confirm: "%%%" }), RENDERED_AT + 5_000)).toEqual({
      kind: "stale",
      why: "timestamp unreadable",
    });
  });

  it("hands a visitor who only presses again fields that are good at once", () => {
    const form = new FormData();
    const fields = trap.inputProps(RENDERED_AT, { resend: true });
    form.set(fields.nameFieldName, "");
    form.set(fields.validFromFieldName!, fields.encryptedValidFrom);
    expect(trap.inspect(form, RENDERED_AT)).toEqual({ kind: "human" });
  });
});
