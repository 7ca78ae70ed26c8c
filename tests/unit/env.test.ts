import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APP_ROOT } from "~/utils/app-root.server";
import { parseEnv, slugify, startupWarnings, withSignupSecret } from "~/utils/env.server";
import { FETCH_BLOCKED_PORTS } from "~/utils/fetch-blocked-ports.server";

describe("settings", () => {
  it("has a default for everything, so the site runs with no configuration", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      SITE_NAME: "Prevly",
      CONTACT_EMAIL: "contato@prevly.com.br",
      SIGNUP_SOURCE: "prevly-landing",
      SIGNUPS_FILE: join(APP_ROOT, "data/signups.jsonl"),
      SIGNUP_SECRET_FILE: join(APP_ROOT, "data/signup-secret"),
      WEBHOOK_TIMEOUT_MS: 5_000,
      HCAPTCHA_VERIFY_TIMEOUT_MS: 2_500,
      HCAPTCHA_SITE_KEY: "10000000-ffff-ffff-ffff-000000000001",
      HCAPTCHA_VERIFY_URL: "https://api.hcaptcha.com/siteverify",
      NOJS_CHALLENGE: "on",
      SIGNUP_MIN_SUBMIT_MS: 1_500,
      RATE_LIMIT_PER_MINUTE: 5,
      RELAY_LIMIT_PER_SECOND: 50,
      TRUST_PROXY: 0,
    });
    expect(env.WEBHOOK_URL).toBeUndefined();
    expect(env.SIGNUP_SECRET).toBeUndefined();
  });

  it("reads relative paths from the app's folder, not the working directory", () => {
    const env = parseEnv({ SIGNUPS_FILE: "var/lista.jsonl" });
    expect(env.SIGNUPS_FILE).toBe(join(APP_ROOT, "var/lista.jsonl"));
    expect(env.SIGNUP_SECRET_FILE).toBe(join(APP_ROOT, "var/signup-secret"));
    expect(parseEnv({ SIGNUPS_FILE: "/srv/dados/lista.jsonl" }).SIGNUPS_FILE).toBe("/srv/dados/lista.jsonl");
  });

  it("without SIGNUP_SECRET makes one secret on first start, keeps it for the server's user only, and reuses it", async () => {
    const folder = await mkdtemp(join(tmpdir(), "kept-secret-"));
    const settings = parseEnv({ SIGNUPS_FILE: join(folder, "signups.jsonl") });
    const first = withSignupSecret(settings).SIGNUP_SECRET;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(withSignupSecret(settings).SIGNUP_SECRET).toBe(first);
    expect((await readFile(join(folder, "signup-secret"), "utf8")).trim()).toBe(first);
    expect((await stat(join(folder, "signup-secret"))).mode & 0o777).toBe(0o600);
    expect(
      withSignupSecret(parseEnv({ SIGNUP_SECRET: "s".repeat(40), SIGNUPS_FILE: join(folder, "x") })).SIGNUP_SECRET,
    ).toBe("s".repeat(40));
  });

  it("stops start-up with one line when the generated secret cannot be kept", () => {
    const blocked = parseEnv({ SIGNUP_SECRET_FILE: "/proc/version/signup-secret" });
    expect(() => withSignupSecret(blocked)).toThrowError(
      /^Invalid configuration: SIGNUP_SECRET is not set and SIGNUP_SECRET_FILE \(\/proc\/version\/signup-secret\) cannot keep a generated one: /,
    );
  });

  it("refuses timeouts that a stop could not wait for", () => {
    expect(() => parseEnv({ WEBHOOK_TIMEOUT_MS: "6500" })).toThrowError(
      "Invalid configuration: HCAPTCHA_VERIFY_TIMEOUT_MS + WEBHOOK_TIMEOUT_MS (+ REDIS_TIMEOUT_MS per Redis call) must be at most 8500 ms, so a sign-up in flight is answered within the 9 s a stop waits (docker stop kills after 10 s)",
    );
    expect(parseEnv({ WEBHOOK_TIMEOUT_MS: "7000", HCAPTCHA_VERIFY_TIMEOUT_MS: "1500" }).WEBHOOK_TIMEOUT_MS).toBe(7000);
  });

  it("counts Redis round trips in the time a sign-up may take", () => {
    // The defaults (2500 + 5000) leave 1000 ms: four Redis calls of 250 ms fit, of 300 ms do not.
    expect(parseEnv({ REDIS_URL: "redis://127.0.0.1:6379" }).REDIS_TIMEOUT_MS).toBe(250);
    expect(() => parseEnv({ REDIS_URL: "redis://127.0.0.1:6379", REDIS_TIMEOUT_MS: "300" })).toThrowError(
      /must be at most 8500 ms/,
    );
    // Without Redis its timeout costs nothing.
    expect(parseEnv({ REDIS_TIMEOUT_MS: "1000" }).REDIS_TIMEOUT_MS).toBe(1000);
  });

  it("derives the source slug from the site name", () => {
    expect(parseEnv({ SITE_NAME: "Minha Previdência" }).SIGNUP_SOURCE).toBe("minha-previdencia-landing");
    expect(slugify("  Ação & Cia.  ")).toBe("acao-cia");
  });

  it("reads numbers and treats empty strings as unset", () => {
    const env = parseEnv({
      WEBHOOK_TIMEOUT_MS: "2500",
      TRUST_PROXY: "1",
      WEBHOOK_URL: "",
      SIGNUP_SECRET: "x".repeat(32),
    });
    expect(env.WEBHOOK_TIMEOUT_MS).toBe(2500);
    expect(env.TRUST_PROXY).toBe(1);
    expect(env.WEBHOOK_URL).toBeUndefined();
    expect(env.SIGNUP_SECRET).toBe("x".repeat(32));
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
    ["WEBHOOK_URL", "http://127.0.0.1:4190/hook", "WEBHOOK_URL uses a port that fetch refuses to call"],
    ["HCAPTCHA_VERIFY_URL", "https://verify.exemplo.com:6000/", "HCAPTCHA_VERIFY_URL uses a port that fetch refuses"],
    ["TRUST_PROXY", "-1", "TRUST_PROXY must be a whole number from 0 to 10"],
    ["REDIS_URL", "http://127.0.0.1:6379", "REDIS_URL must be a redis:// or rediss:// URL"],
    ["REDIS_TIMEOUT_MS", "0", "REDIS_TIMEOUT_MS must be a whole number from 10 to 1000"],
  ])("a bad %s stops start-up with one line naming it", (name, value, message) => {
    expect(() => parseEnv({ [name]: value })).toThrowError(`Invalid configuration: ${message}`);
  });

  it("refuses exactly the ports the fetch that relays sign-ups refuses", async () => {
    const undici = createRequire(import.meta.url)("undici/lib/web/fetch/constants.js") as { badPorts: string[] };
    expect([...FETCH_BLOCKED_PORTS]).toEqual(undici.badPorts);
    const { fetch } = await import("undici");
    await expect(fetch("http://127.0.0.1:4190/")).rejects.toMatchObject({ cause: { message: "bad port" } });
  });

  it("warns about every embedded default that is not fit for production", () => {
    expect(startupWarnings(parseEnv({}))).toEqual([
      `WEBHOOK_URL is not set: sign-ups are appended to ${join(APP_ROOT, "data/signups.jsonl")}`,
      "HCAPTCHA_SECRET is not set: captcha tokens are relayed without server-side verification",
      `SIGNUP_SECRET is not set: the one kept in ${join(APP_ROOT, "data/signup-secret")} is used (several instances need REDIS_URL or one SIGNUP_SECRET)`,
      "REDIS_URL is not set: limits and the replay guard live in this process (one instance only)",
    ]);
    const configured = parseEnv({
      WEBHOOK_URL: "https://automacao.exemplo.com/hook",
      HCAPTCHA_SECRET: "segredo",
      SIGNUP_SECRET: "s".repeat(40),
      REDIS_URL: "rediss://:senha@redis.interno:6380/0",
    });
    expect(startupWarnings(configured)).toEqual([]);
    expect(startupWarnings({ ...configured, SIGNUP_SECRET: undefined })).toEqual([
      "SIGNUP_SECRET is not set: instances agree on one generated secret kept in Redis",
    ]);
  });
});
