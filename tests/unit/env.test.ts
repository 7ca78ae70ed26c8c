import { describe, expect, it } from "vitest";
import { parseEnv, slugify, startupWarnings } from "~/utils/env.server";

describe("settings", () => {
  it("has a default for everything, so the site runs with no configuration", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      SITE_NAME: "Prevly",
      CONTACT_EMAIL: "contato@prevly.com.br",
      SIGNUP_SOURCE: "prevly-landing",
      SIGNUPS_FILE: "data/signups.jsonl",
      WEBHOOK_TIMEOUT_MS: 10_000,
      HCAPTCHA_SITE_KEY: "10000000-ffff-ffff-ffff-000000000001",
      HCAPTCHA_VERIFY_URL: "https://api.hcaptcha.com/siteverify",
      NOJS_CHALLENGE: "on",
      SIGNUP_MIN_SUBMIT_MS: 1_500,
      RATE_LIMIT_PER_MINUTE: 5,
      RELAY_LIMIT_PER_SECOND: 50,
      TRUST_PROXY: 0,
      signupSecretIsEphemeral: true,
    });
    expect(env.WEBHOOK_URL).toBeUndefined();
    expect(env.SIGNUP_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(parseEnv({}).SIGNUP_SECRET).not.toBe(env.SIGNUP_SECRET);
  });

  it("derives the source slug from the site name", () => {
    expect(parseEnv({ SITE_NAME: "Minha Previdência" }).SIGNUP_SOURCE).toBe("minha-previdencia-landing");
    expect(slugify("  Ação & Cia.  ")).toBe("acao-cia");
  });

  it("reads numbers and treats empty strings as unset", () => {
    const env = parseEnv({ WEBHOOK_TIMEOUT_MS: "2500", TRUST_PROXY: "1", WEBHOOK_URL: "", SIGNUP_SECRET: "x".repeat(32) });
    expect(env.WEBHOOK_TIMEOUT_MS).toBe(2500);
    expect(env.TRUST_PROXY).toBe(1);
    expect(env.WEBHOOK_URL).toBeUndefined();
    expect(env.signupSecretIsEphemeral).toBe(false);
  });

  it.each([
    ["WEBHOOK_URL", "ftp://automacao.exemplo.com/hook", "WEBHOOK_URL must be an http(s) URL"],
    ["WEBHOOK_URL", "not a url", "WEBHOOK_URL must be an http(s) URL"],
    ["WEBHOOK_TIMEOUT_MS", "ten", "WEBHOOK_TIMEOUT_MS must be a whole number from 100 to 60000"],
    ["WEBHOOK_TIMEOUT_MS", "1.5", "WEBHOOK_TIMEOUT_MS must be a whole number"],
    ["PORT", "70000", "PORT must be a whole number from 1 to 65535"],
    ["CONTACT_EMAIL", "contato", "CONTACT_EMAIL must be an e-mail address"],
    ["NOJS_CHALLENGE", "maybe", "NOJS_CHALLENGE must be 'on' or 'off'"],
    ["SIGNUP_SECRET", "short", "SIGNUP_SECRET must be at least 32 characters"],
    ["SIGNUP_MIN_SUBMIT_MS", "5000", "SIGNUP_MIN_SUBMIT_MS must be a whole number from 0 to 2000"],
    ["SIGNUP_SOURCE", "Com Espaço", "SIGNUP_SOURCE must be a slug"],
    ["HCAPTCHA_VERIFY_URL", "siteverify", "HCAPTCHA_VERIFY_URL must be an http(s) URL"],
    ["TRUST_PROXY", "-1", "TRUST_PROXY must be a whole number from 0 to 10"],
  ])("a bad %s stops start-up with one line naming it", (name, value, message) => {
    expect(() => parseEnv({ [name]: value })).toThrowError(`Invalid configuration: ${message}`);
  });

  it("warns about every embedded default that is not fit for production", () => {
    expect(startupWarnings(parseEnv({}))).toEqual([
      "WEBHOOK_URL is not set: sign-ups are appended to data/signups.jsonl",
      "HCAPTCHA_SECRET is not set: captcha tokens are relayed without server-side verification",
      "SIGNUP_SECRET is not set: a random one is used, valid for this process only",
    ]);
    const configured = parseEnv({
      WEBHOOK_URL: "https://automacao.exemplo.com/hook",
      HCAPTCHA_SECRET: "segredo",
      SIGNUP_SECRET: "s".repeat(40),
    });
    expect(startupWarnings(configured)).toEqual([]);
  });
});
