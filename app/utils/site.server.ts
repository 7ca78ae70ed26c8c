import { orExitOnConfigError } from "./config-error.server";
import { env } from "./env.server";
import { createSignup } from "./signup.server";

/** The process-wide instances, built once from the validated settings. */
export const site = { name: env.SITE_NAME, contactEmail: env.CONTACT_EMAIL, captchaSiteKey: env.HCAPTCHA_SITE_KEY };

export const signup = orExitOnConfigError(() => createSignup(env));
