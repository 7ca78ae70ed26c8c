import { dirname, join } from "node:path";
import { z } from "zod";
import { fromAppRoot } from "./app-root.server";
import { ConfigError, orExitOnConfigError } from "./config-error.server";
import { FETCH_BLOCKED_PORTS } from "./fetch-blocked-ports.server";
import { DRAIN_LIMIT_MS, SIGNUP_TIME_BUDGET_MS } from "./graceful-stop.server";
import { keptSecret } from "./kept-secret.server";

/** hCaptcha's public test key: the widget always passes, siteverify accepts it with the test secret. */
const HCAPTCHA_TEST_SITE_KEY = "10000000-ffff-ffff-ffff-000000000001";

const httpUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/, error: `must be an http(s) URL (${what})` })
    .refine((url) => !URL.canParse(url) || !FETCH_BLOCKED_PORTS.has(new URL(url).port), {
      error: "uses a port that fetch refuses to call (the Fetch standard's blocked ports); choose another",
    });

const wholeNumber = (min: number, max: number) =>
  z.coerce
    .number({ error: `must be a whole number from ${min} to ${max}` })
    .int({ error: `must be a whole number from ${min} to ${max}` })
    .min(min, { error: `must be a whole number from ${min} to ${max}` })
    .max(max, { error: `must be a whole number from ${min} to ${max}` });

const schema = z
  .object({
    NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
    PORT: wholeNumber(1, 65535).optional(),
    SITE_NAME: z.string().trim().min(1).max(60).default("Prevly"),
    CONTACT_EMAIL: z.email({ error: "must be an e-mail address" }).default("contato@prevly.com.br"),
    WEBHOOK_URL: httpUrl("the automation webhook").optional(),
    WEBHOOK_TIMEOUT_MS: wholeNumber(100, 60_000).default(5_000),
    SIGNUPS_FILE: z.string().trim().min(1).default("data/signups.jsonl"),
    SIGNUP_SOURCE: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, { error: "must be a slug: a-z, 0-9, '.', '_' or '-'" })
      .optional(),
    HCAPTCHA_SITE_KEY: z.string().trim().min(1).default(HCAPTCHA_TEST_SITE_KEY),
    HCAPTCHA_SECRET: z.string().trim().min(1).optional(),
    HCAPTCHA_VERIFY_URL: httpUrl("hCaptcha siteverify").default("https://api.hcaptcha.com/siteverify"),
    HCAPTCHA_VERIFY_TIMEOUT_MS: wholeNumber(100, 60_000).default(2_500),
    SIGNUP_SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
    SIGNUP_SECRET_FILE: z.string().trim().min(1).optional(),
    NOJS_CHALLENGE: z.enum(["on", "off"], { error: "must be 'on' or 'off'" }).default("on"),
    SIGNUP_MIN_SUBMIT_MS: wholeNumber(0, 2_000).default(1_500),
    RATE_LIMIT_PER_MINUTE: wholeNumber(1, 100_000).default(5),
    RELAY_LIMIT_PER_SECOND: wholeNumber(1, 1_000_000).default(50),
    NOJS_RELAYS_PER_MINUTE: wholeNumber(1, 10_000).default(10),
    TRUST_PROXY: wholeNumber(0, 10).default(0),
    REDIS_URL: z
      .url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL (credentials in the URL)" })
      .optional(),
    REDIS_TIMEOUT_MS: wholeNumber(10, 1_000).default(250),
  })
  .refine(
    // A sign-up accepted before SIGTERM must be answered before the drain ends (see graceful-stop).
    (values) => signupTimeBudgetMs(values) <= SIGNUP_TIME_BUDGET_MS,
    {
      path: ["HCAPTCHA_VERIFY_TIMEOUT_MS + WEBHOOK_TIMEOUT_MS (+ REDIS_TIMEOUT_MS per Redis call)"],
      error: `must be at most ${SIGNUP_TIME_BUDGET_MS} ms, so a sign-up in flight is answered within the ${DRAIN_LIMIT_MS / 1000} s a stop waits (docker stop kills after 10 s)`,
    },
  );

/** Shared-state round trips one sign-up makes at most: with a captcha (limit, claim, ceiling, settle), with the question (two more). */
const STORE_CALLS = { captcha: 4, question: 6 };

/** The longest one sign-up's outgoing calls may take: siteverify, the webhook and each Redis round trip. */
export function signupTimeBudgetMs(values: {
  HCAPTCHA_VERIFY_TIMEOUT_MS: number;
  WEBHOOK_TIMEOUT_MS: number;
  REDIS_URL?: string;
  REDIS_TIMEOUT_MS: number;
}): number {
  const store = values.REDIS_URL ? values.REDIS_TIMEOUT_MS : 0;
  return Math.max(
    values.HCAPTCHA_VERIFY_TIMEOUT_MS + values.WEBHOOK_TIMEOUT_MS + STORE_CALLS.captcha * store,
    values.WEBHOOK_TIMEOUT_MS + STORE_CALLS.question * store,
  );
}

export type Settings = Omit<z.infer<typeof schema>, "SIGNUP_SOURCE" | "SIGNUP_SECRET_FILE"> & {
  SIGNUP_SOURCE: string;
  /** Where the generated secret is kept when SIGNUP_SECRET is not set. */
  SIGNUP_SECRET_FILE: string;
};

export type Env = Settings & { SIGNUP_SECRET: string };

/** "Prevly Previdência" → "prevly-previdencia-landing": a stable `source` for the automation. */
export function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * Validates the settings. Empty strings count as unset, so `-e VAR=` in a
 * container behaves like leaving the variable out.
 */
export function parseEnv(source: Record<string, string | undefined>): Settings {
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${issue.path.join(".")} ${issue.message}`);
  }
  const values = parsed.data;
  const signupsFile = fromAppRoot(values.SIGNUPS_FILE);
  return {
    ...values,
    SIGNUPS_FILE: signupsFile,
    SIGNUP_SOURCE: values.SIGNUP_SOURCE ?? `${slugify(values.SITE_NAME) || "site"}-landing`,
    SIGNUP_SECRET_FILE: fromAppRoot(values.SIGNUP_SECRET_FILE ?? join(dirname(signupsFile), "signup-secret")),
  };
}

/** SIGNUP_SECRET, or the one generated on first start and kept in SIGNUP_SECRET_FILE. */
export function withSignupSecret(settings: Settings): Env {
  if (settings.SIGNUP_SECRET) return { ...settings, SIGNUP_SECRET: settings.SIGNUP_SECRET };
  try {
    return { ...settings, SIGNUP_SECRET: keptSecret(settings.SIGNUP_SECRET_FILE) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `Invalid configuration: SIGNUP_SECRET is not set and SIGNUP_SECRET_FILE (${settings.SIGNUP_SECRET_FILE}) cannot keep a generated one: ${reason}`,
    );
  }
}

/** What an operator should know at start-up about the defaults in force. */
export function startupWarnings(env: Settings): string[] {
  const warnings: string[] = [];
  if (!env.WEBHOOK_URL) {
    warnings.push(`WEBHOOK_URL is not set: sign-ups are appended to ${env.SIGNUPS_FILE}`);
  }
  if (!env.HCAPTCHA_SECRET) {
    warnings.push("HCAPTCHA_SECRET is not set: captcha tokens are relayed without server-side verification");
  }
  if (!env.SIGNUP_SECRET) {
    warnings.push(
      env.REDIS_URL
        ? "SIGNUP_SECRET is not set: instances agree on one generated secret kept in Redis"
        : `SIGNUP_SECRET is not set: the one kept in ${env.SIGNUP_SECRET_FILE} is used (several instances need REDIS_URL or one SIGNUP_SECRET)`,
    );
  }
  if (!env.REDIS_URL) {
    warnings.push("REDIS_URL is not set: limits and the replay guard live in this process (one instance only)");
  }
  return warnings;
}

export const env = orExitOnConfigError(() => {
  const settings = parseEnv(process.env);
  for (const warning of startupWarnings(settings)) console.warn(`[config] warning: ${warning}`);
  return settings;
});
