import { z } from "zod";

/** hCaptcha's public test key: the widget always passes, siteverify accepts it with the test secret. */
const HCAPTCHA_TEST_SITE_KEY = "10000000-ffff-ffff-ffff-000000000001";

const httpUrl = (what: string) =>
  z.url({ protocol: /^https?$/, error: `must be an http(s) URL (${what})` });

const wholeNumber = (min: number, max: number) =>
  z.coerce
    .number({ error: `must be a whole number from ${min} to ${max}` })
    .int({ error: `must be a whole number from ${min} to ${max}` })
    .min(min, { error: `must be a whole number from ${min} to ${max}` })
    .max(max, { error: `must be a whole number from ${min} to ${max}` });

const schema = z.object({
  NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
  PORT: wholeNumber(1, 65535).optional(),
  SITE_NAME: z.string().trim().min(1).max(60).default("Prevly"),
  CONTACT_EMAIL: z.email({ error: "must be an e-mail address" }).default("contato@prevly.com.br"),
  WEBHOOK_URL: httpUrl("the automation webhook").optional(),
  WEBHOOK_TIMEOUT_MS: wholeNumber(100, 60_000).default(10_000),
  SIGNUPS_FILE: z.string().trim().min(1).default("data/signups.jsonl"),
  SIGNUP_SOURCE: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, { error: "must be a slug: a-z, 0-9, '.', '_' or '-'" })
    .optional(),
  HCAPTCHA_SITE_KEY: z.string().trim().min(1).default(HCAPTCHA_TEST_SITE_KEY),
  HCAPTCHA_SECRET: z.string().trim().min(1).optional(),
  HCAPTCHA_VERIFY_URL: httpUrl("hCaptcha siteverify").default("https://api.hcaptcha.com/siteverify"),
  HCAPTCHA_VERIFY_TIMEOUT_MS: wholeNumber(100, 60_000).default(5_000),
  SIGNUP_SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
  NOJS_CHALLENGE: z.enum(["on", "off"], { error: "must be 'on' or 'off'" }).default("on"),
  SIGNUP_MIN_SUBMIT_MS: wholeNumber(0, 2_000).default(1_500),
  RATE_LIMIT_PER_MINUTE: wholeNumber(1, 100_000).default(5),
  RELAY_LIMIT_PER_SECOND: wholeNumber(1, 1_000_000).default(50),
  TRUST_PROXY: wholeNumber(0, 10).default(0),
});

export type Env = Omit<z.infer<typeof schema>, "SIGNUP_SOURCE" | "SIGNUP_SECRET"> & {
  SIGNUP_SOURCE: string;
  SIGNUP_SECRET: string;
  /** True when SIGNUP_SECRET was not set and a random one was made for this process. */
  signupSecretIsEphemeral: boolean;
};

class ConfigError extends Error {}

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
export function parseEnv(source: Record<string, string | undefined>): Env {
  const present = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${issue.path.join(".")} ${issue.message}`);
  }
  const values = parsed.data;
  return {
    ...values,
    SIGNUP_SOURCE: values.SIGNUP_SOURCE ?? `${slugify(values.SITE_NAME) || "site"}-landing`,
    SIGNUP_SECRET: values.SIGNUP_SECRET ?? randomSecret(),
    signupSecretIsEphemeral: values.SIGNUP_SECRET === undefined,
  };
}

function randomSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64url");
}

/** What an operator should know at start-up about the defaults in force. */
export function startupWarnings(env: Env): string[] {
  const warnings: string[] = [];
  if (!env.WEBHOOK_URL) {
    warnings.push(`WEBHOOK_URL is not set: sign-ups are appended to ${env.SIGNUPS_FILE}`);
  }
  if (!env.HCAPTCHA_SECRET) {
    warnings.push("HCAPTCHA_SECRET is not set: captcha tokens are relayed without server-side verification");
  }
  if (env.signupSecretIsEphemeral) {
    warnings.push("SIGNUP_SECRET is not set: a random one is used, valid for this process only");
  }
  return warnings;
}

function loadEnv(): Env {
  try {
    const env = parseEnv(process.env);
    for (const warning of startupWarnings(env)) console.warn(`[config] warning: ${warning}`);
    return env;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // One clear line for `docker logs`, then stop: a half-configured server must not serve.
    console.error(error.message);
    process.exit(1);
  }
}

export const env = loadEnv();
