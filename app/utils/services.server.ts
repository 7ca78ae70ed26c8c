import { ConfigError, orExitOnConfigError } from "./config-error.server";
import { env, withSignupSecret, type Env } from "./env.server";
import { createSignup } from "./signup.server";
import { memoryState } from "./state/memory-state.server";
import { agreedSecret, redisState } from "./state/redis-state.server";

/** How long a starting instance without SIGNUP_SECRET waits for Redis to agree on one. */
const SECRET_AGREEMENT_WAIT_MS = 15_000;

/**
 * The server's services, built once from the validated settings when the
 * build is imported (before remix-serve listens): the site's identity, the
 * shared state (memory, or Redis with REDIS_URL) and the sign-up pipeline.
 */
export const site = { name: env.SITE_NAME, contactEmail: env.CONTACT_EMAIL, captchaSiteKey: env.HCAPTCHA_SITE_KEY };

const namespace = env.SIGNUP_SOURCE;
const redis = env.REDIS_URL ? redisState({ url: env.REDIS_URL, timeoutMs: env.REDIS_TIMEOUT_MS, namespace }) : null;
const state = redis ?? memoryState();

const { settings, secretAgrees } = await signupSettings();

export const signup = orExitOnConfigError(() => createSignup(settings, state));

/** False once Redis holds a signing secret other than the one this instance signs with. */
export const signingSecretAgrees = secretAgrees;

/**
 * SIGNUP_SECRET when set; else, with Redis, the one every instance agrees on
 * there; else the one kept in SIGNUP_SECRET_FILE for this instance's restarts.
 */
async function signupSettings(): Promise<{ settings: Env; secretAgrees: () => boolean }> {
  if (env.SIGNUP_SECRET || !redis) {
    return { settings: orExitOnConfigError(() => withSignupSecret(env)), secretAgrees: () => true };
  }
  try {
    const { secret, agrees } = await agreedSecret(redis.client, namespace, SECRET_AGREEMENT_WAIT_MS);
    return { settings: { ...env, SIGNUP_SECRET: secret }, secretAgrees: agrees };
  } catch (error) {
    return orExitOnConfigError(() => {
      throw new ConfigError(
        `Invalid configuration: SIGNUP_SECRET is not set and Redis (REDIS_URL) could not provide the shared one: ${(error as Error).message}`,
      );
    });
  }
}
