/**
 * Loopback ports of the end-to-end run: the app and the stand-in webhook/siteverify.
 * E2E_APP_PORT and E2E_STAND_IN_PORT move them, so two checkouts can run side by side.
 */
export const APP_PORT = Number(process.env.E2E_APP_PORT || 3210);
export const APP_ORIGIN = `http://127.0.0.1:${APP_PORT}`;
export const STAND_IN_PORT = Number(process.env.E2E_STAND_IN_PORT || 4510);
export const STAND_IN_ORIGIN = `http://127.0.0.1:${STAND_IN_PORT}`;
/** The end-to-end server's SIGNUP_SECRET. */
export const E2E_SIGNUP_SECRET = "e2e-signing-secret-0123456789abcdef";
/** The end-to-end server's METRICS_TOKEN: the campaign counts are read from its /metrics. */
export const E2E_METRICS_TOKEN = "e2e-metrics-token-0123456789abcdef";
