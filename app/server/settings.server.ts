import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { fromAppRoot } from "./app-files.server";
import { reasonOf } from "./log.server";
import { percentDecoded } from "./percent-decoding.server";

/**
 * The production settings, read and validated once at start-up: only what ops must or may set. Tuning values
 * (timeouts, limits, the bot trap's minimum time) are named constants beside their use.
 */

/** A setting the server cannot run with; its message is the one line start-up prints. */
export class ConfigError extends Error {}

/** Builds from the settings, or prints the ConfigError's one line and exits: a half-set-up server must not serve. */
export function orExitOnConfigError<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    return exitOnConfigError(error);
  }
}

/** Prints a ConfigError's one line and exits 1; anything else is thrown on. */
export function exitOnConfigError(error: unknown): never {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

/** hCaptcha's public test key: the widget always passes, siteverify accepts it with the test secret. */
const HCAPTCHA_TEST_SITE_KEY = "10000000-ffff-ffff-ffff-000000000001";

/**
 * Ports the Fetch standard forbids (https://fetch.spec.whatwg.org/#port-blocking): every call to them fails before
 * connecting, so an outgoing URL on one is refused at start-up. A unit test checks this list against undici's.
 */
export const FETCH_BLOCKED_PORTS: ReadonlySet<string> = new Set(
  (
    "1 7 9 11 13 15 17 19 20 21 22 23 25 37 42 43 53 69 77 79 87 95 101 102 103 104 109 110 111 113 115 117 119 " +
    "123 135 137 139 143 161 179 389 427 465 512 513 514 515 526 530 531 532 540 548 554 556 563 587 601 636 " +
    "989 990 993 995 1719 1720 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665 6666 6667 6668 6669 6679 6697 10080"
  ).split(" "),
);

const MIN_SECRET_LENGTH = 32;

/** An http(s) URL; `abort` keeps the refinements after it from reading one it refused. */
const httpUrl = (error: string) => z.url({ protocol: /^https?$/, error, abort: true });

const outgoingUrl = (what: string) =>
  httpUrl(`must be an http(s) URL (${what})`)
    .refine((url) => new URL(url).port !== "0", { error: "uses port 0, which nothing can be called on" })
    .refine((url) => !FETCH_BLOCKED_PORTS.has(new URL(url).port), {
      error: "uses a port that fetch refuses to call (the Fetch standard's blocked ports); choose another",
    });

/** The kernel's file systems: nothing written there is kept, and making a folder under /proc never ends in Node. */
const KERNEL_FOLDERS = /^\/(proc|sys)(\/|$)/;
/** How long making SIGNUPS_FILE's folder may take at start-up (a hung network mount never answers). */
const FOLDER_TIMEOUT_MS = 3_000;

/** "https://prevly.com.br/" → "https://prevly.com.br": the scheme, host and port alone. */
const publicOrigin = httpUrl("must be the page's public address, an http(s) URL like https://prevly.com.br")
  .refine(
    (url) => {
      const { pathname, search, hash, username, password } = new URL(url);
      return pathname === "/" && !search && !hash && !username && !password;
    },
    { error: "must be an origin only (scheme, host and port), without path, query, fragment or credentials" },
  )
  .transform((url) => new URL(url).origin);

/** One message whichever check fails: a schema's own error is zod's message for its checks too. */
const SENTINELS_ERROR =
  "must be the Sentinels' addresses as host:port, separated by commas (sentinel-1:26379,sentinel-2:26379)";
const wholeNumber = (min: number, max: number) => {
  const error = `must be a whole number from ${min} to ${max}`;
  // Digits only: Number() would also read "0x1", "1e3" and blanks.
  return z
    .string()
    .trim()
    .regex(/^\d+$/, { error })
    .transform(Number)
    .pipe(z.number().int().min(min, { error }).max(max, { error }));
};

const schema = z
  .object({
    NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
    // remix-serve reads it and would take `abc` for unset (port 3000): checked here so a bad PORT stops start-up.
    PORT: wholeNumber(1, 65535).optional(),
    // Link previews need absolute addresses; the request's Host is the visitor's to choose.
    PUBLIC_URL: publicOrigin.optional(),
    WEBHOOK_URL: outgoingUrl("the automation webhook")
      .refine((url) => [new URL(url).username, new URL(url).password].every((part) => percentDecoded(part) !== null), {
        error: "holds credentials that are not valid percent-encoding (write a % in them as %25)",
      })
      .optional(),
    SIGNUPS_FILE: z
      .string()
      .trim()
      .min(1)
      .default("data/signups.jsonl")
      .transform(fromAppRoot)
      .refine((path) => !KERNEL_FOLDERS.test(path), {
        error: "is under /proc or /sys, which keep nothing: choose a folder on a disk or volume",
      }),
    // Where the shipped nginx logs the page views it answers (deploy/nginx.conf); unset: only the views this
    // instance renders are counted.
    PAGE_VIEWS_FOLDER: z.string().trim().min(1).transform(fromAppRoot).optional(),
    SIGNUP_SOURCE: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, { error: "must be a slug: a-z, 0-9, '.', '_' or '-'" })
      .default("prevly-landing"),
    HCAPTCHA_SITE_KEY: z.string().trim().min(1).default(HCAPTCHA_TEST_SITE_KEY),
    HCAPTCHA_SECRET: z.string().trim().min(1).optional(),
    HCAPTCHA_VERIFY_URL: outgoingUrl("hCaptcha siteverify").default("https://api.hcaptcha.com/siteverify"),
    SIGNUP_SECRET: z
      .string()
      .min(MIN_SECRET_LENGTH, { error: `must be at least ${MIN_SECRET_LENGTH} characters` })
      .optional(),
    SIGNUP_SECRET_PREVIOUS: z
      .string()
      .min(MIN_SECRET_LENGTH, { error: `must be at least ${MIN_SECRET_LENGTH} characters` })
      .optional(),
    // What the automation accepts (Zapier, Make and n8n plans differ): only ops know it.
    RELAY_LIMIT_PER_SECOND: wholeNumber(1, 1_000_000).default(100),
    TRUST_PROXY: wholeNumber(0, 10).default(0),
    REDIS_URL: z
      .url({
        protocol: /^rediss?$/,
        error: "must be a redis:// or rediss:// URL (credentials in the URL)",
        abort: true,
      })
      // ioredis reads "/0x10" as database 0, "/1.5" as 1 and "/abc" as NaN, and carries on; "?db=" likewise.
      .refine((url) => /^(\/\d*)?$/.test(new URL(url).pathname) && !new URL(url).searchParams.has("db"), {
        error: "must name its database in decimal digits after the host (redis://host:6379/2), or name none (0)",
      })
      .optional(),
    // A Sentinel group: the app asks these where the primary is, and follows it through a failover. REDIS_URL
    // then gives the primary's credentials and database; its host is the one Sentinel names.
    REDIS_SENTINELS: z
      .string()
      .trim()
      .regex(/^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/, { error: SENTINELS_ERROR })
      .refine(
        (list) => list.split(",").every((address) => Number(address.split(":")[1]) <= 65535 && !/:0+$/.test(address)),
        {
          error: SENTINELS_ERROR,
        },
      )
      .transform((list) =>
        list.split(",").map((address) => {
          const [host, port] = address.split(":") as [string, string];
          return { host, port: Number(port) };
        }),
      )
      .optional(),
    REDIS_SENTINEL_NAME: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: "must be the primary's name in the Sentinels' configuration" })
      .optional(),
    REDIS_SENTINEL_USERNAME: z.string().min(1).optional(),
    REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
    // A queued sign-up is acknowledged once this many replicas hold it (0: once the primary does).
    REDIS_MIN_REPLICAS: wholeNumber(0, 5).default(0),
    RELAY_MODE: z.enum(["direct", "queued"], { error: "must be 'direct' or 'queued'" }).default("direct"),
    RELAY_RETRY_HOURS: wholeNumber(1, 720).default(72),
    // How long the automation may take to answer one queued attempt: workflows differ (n8n Cloud cuts at 100 s).
    RELAY_ATTEMPT_SECONDS: wholeNumber(2, 300).default(30),
    WEBHOOK_SIGNING_SECRET: z.string().min(16, { error: "must be at least 16 characters" }).optional(),
    METRICS_TOKEN: z.string().min(16, { error: "must be at least 16 characters" }).optional(),
  })
  .refine((values) => !values.REDIS_URL || values.SIGNUP_SECRET, {
    path: ["SIGNUP_SECRET"],
    error: "must be set when REDIS_URL is: every instance must sign the forms with the same secret",
  })
  .refine((values) => !values.SIGNUP_SECRET_PREVIOUS || values.SIGNUP_SECRET_PREVIOUS !== values.SIGNUP_SECRET, {
    path: ["SIGNUP_SECRET_PREVIOUS"],
    error: "is the same as SIGNUP_SECRET: set it to the secret being replaced, or leave it unset",
  })
  .refine((values) => !values.REDIS_SENTINELS || (values.REDIS_URL && values.REDIS_SENTINEL_NAME), {
    path: ["REDIS_SENTINELS"],
    error: "needs REDIS_SENTINEL_NAME (the primary's name) and REDIS_URL (its credentials and database)",
  })
  .refine((values) => !values.REDIS_MIN_REPLICAS || values.RELAY_MODE === "queued", {
    path: ["REDIS_MIN_REPLICAS"],
    error: "counts only in RELAY_MODE=queued, where Redis holds the sign-ups: set it to 0 or leave it unset",
  })
  .refine((values) => values.RELAY_MODE !== "queued" || (values.REDIS_URL && values.WEBHOOK_URL), {
    path: ["RELAY_MODE"],
    error: "queued needs REDIS_URL (the queue lives in Redis) and WEBHOOK_URL (where it delivers)",
  });

export type Settings = z.infer<typeof schema>;

/** Settings whose signing secret is known: SIGNUP_SECRET, or the one kept beside the sign-ups file. */
export type SignedSettings = Settings & { SIGNUP_SECRET: string };

/** Validates the settings. Empty strings count as unset, so `-e VAR=` in a container is like leaving VAR out. */
export function parseSettings(source: Record<string, string | undefined>): Settings {
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${issue.path.join(".")} ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Makes SIGNUPS_FILE's folder when the sink or the kept secret will use it, before they do it synchronously: a
 * folder not made within `timeoutMs` is a ConfigError. Its other errors are left to them to name.
 */
export async function makeSignupsFolder(
  settings: Settings,
  { timeoutMs = FOLDER_TIMEOUT_MS, makeFolder = (folder: string) => mkdir(folder, { recursive: true }) } = {},
): Promise<void> {
  if (settings.WEBHOOK_URL && settings.SIGNUP_SECRET) return;
  const folder = dirname(settings.SIGNUPS_FILE);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, timeoutMs, false)));
  const made = makeFolder(folder).then(
    () => true,
    () => true,
  );
  const inTime = await Promise.race([made, late]);
  clearTimeout(timer);
  if (!inTime) {
    throw new ConfigError(
      `Invalid configuration: SIGNUPS_FILE's folder ${folder} could not be made within ${timeoutMs / 1000} s`,
    );
  }
}

/** Where the generated secret of a single instance is kept: beside the sign-ups file, in the data volume. */
function keptSecretPath(settings: Settings): string {
  return join(dirname(settings.SIGNUPS_FILE), "signup-secret");
}

/** SIGNUP_SECRET, or the one generated on first start and kept beside the sign-ups file. */
export function withSigningSecret(settings: Settings): SignedSettings {
  if (settings.SIGNUP_SECRET) return { ...settings, SIGNUP_SECRET: settings.SIGNUP_SECRET };
  const path = keptSecretPath(settings);
  try {
    return { ...settings, SIGNUP_SECRET: keptSecret(path) };
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: SIGNUP_SECRET is not set and ${path} cannot keep a generated one: ${reasonOf(error)}`,
    );
  }
}

/**
 * The signing secret kept in a file readable only by the server's user, made once on first start: pages rendered
 * before a restart or deploy still sign up after it. Two processes starting together agree on one secret: each
 * writes its own candidate and links it into place, and the loser reads the winner's (rename would overwrite it).
 */
function keptSecret(path: string): string {
  try {
    return readSecret(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  const candidate = `${path}.${process.pid}.${randomBytes(6).toString("hex")}`;
  writeFileSync(candidate, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  try {
    linkSync(candidate, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(candidate);
  }
  return readSecret(path);
}

function readSecret(path: string): string {
  const secret = readFileSync(path, "utf8").trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`holds fewer than ${MIN_SECRET_LENGTH} characters; delete it to make a new one`);
  }
  return secret;
}

/** What an operator should know at start-up about the defaults in force. */
export function startupWarnings(settings: Settings): string[] {
  return [
    !settings.WEBHOOK_URL && `WEBHOOK_URL is not set: sign-ups are appended to ${settings.SIGNUPS_FILE}`,
    !settings.HCAPTCHA_SECRET &&
      "HCAPTCHA_SECRET is not set: captcha tokens are relayed without server-side verification",
    !settings.SIGNUP_SECRET && `SIGNUP_SECRET is not set: the one kept in ${keptSecretPath(settings)} is used`,
    !settings.REDIS_URL && "REDIS_URL is not set: limits and the replay guard live in this process (one instance only)",
    !settings.PUBLIC_URL && "PUBLIC_URL is not set: link previews carry no picture, canonical address or og:url",
    !!settings.SIGNUP_SECRET_PREVIOUS &&
      "SIGNUP_SECRET_PREVIOUS is set: forms signed with it are still accepted; remove it two hours after every instance signs with SIGNUP_SECRET",
  ].filter((warning) => warning !== false);
}

/** The settings of this process, with a warning line per default in force; exits on an invalid one. */
export function loadSettings(): Settings {
  return orExitOnConfigError(() => {
    const parsed = parseSettings(process.env);
    for (const warning of startupWarnings(parsed)) console.warn(`[config] warning: ${warning}`);
    return parsed;
  });
}
