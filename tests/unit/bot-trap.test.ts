import { describe, expect, it } from "vitest";
import { BotTrap, FORM_MAX_AGE_MS, MIN_SUBMIT_MS } from "~/signup/bot-trap.server";
import { SignedTokens } from "~/signup/signed-tokens.server";

const RENDERED_AT = Date.parse("2026-11-22T12:00:00Z");
const trapWith = (secret: string) => new BotTrap(new SignedTokens(secret));

function postedForm(trap: BotTrap, renderedAt = RENDERED_AT, overrides: Record<string, string> = {}): URLSearchParams {
  const fields = trap.fields(renderedAt);
  const form = new URLSearchParams();
  form.set(fields.nameField, "");
  form.set(fields.validFromField, fields.validFrom);
  for (const [name, value] of Object.entries(overrides)) form.set(name, value);
  return form;
}

describe("the bot trap", () => {
  const trap = trapWith("bot-trap-secret-0123456789abcdef0123");

  it.each([
    ["at the minimum time", MIN_SUBMIT_MS, { kind: "human" }],
    ["at the maximum age", FORM_MAX_AGE_MS, { kind: "human" }],
    ["sent too fast", MIN_SUBMIT_MS - 1, { kind: "bot", why: "sent too fast" }],
    ["older than the maximum age: stale, never a silent success", FORM_MAX_AGE_MS + 1, { kind: "stale" }],
  ])("a post %s → %j", (_case, age, verdict) => {
    expect(trap.inspect(postedForm(trap), RENDERED_AT + age)).toEqual(verdict);
  });

  it("takes a post without its fields for a bot's (a filled field: unit/pipeline)", () => {
    expect(trap.inspect(new URLSearchParams(), RENDERED_AT)).toEqual({ kind: "bot", why: "bot-trap fields missing" });
  });

  it("calls a time signed with another secret, or altered, unreadable", () => {
    const unreadable = { kind: "unreadable" };
    const before = trapWith("another-secret-0123456789abcdef01234");
    expect(trap.inspect(postedForm(before), RENDERED_AT + 5_000)).toEqual(unreadable);
    const [time, mac] = trap.fields(RENDERED_AT).validFrom.split(".") as [string, string];
    const earlier = `${Number(time) - 60_000}.${mac}`;
    for (const token of ["%%%", earlier, `${time}.${mac.slice(1)}`, `0${time}.${mac}`]) {
      expect(trap.inspect(postedForm(trap, RENDERED_AT, { from__confirm: token }), RENDERED_AT + 5_000)).toEqual(
        unreadable,
      );
    }
  });
});
