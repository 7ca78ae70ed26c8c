/**
 * The one rule of the shared render (decision 009): the landing page is
 * rendered once per second and that render, with the form tokens in it (the
 * honeypot's timestamp, the fallback question), is handed to every visitor of
 * that second. The page cache, the form tokens and the question's answer
 * count all follow it from here.
 */
export const SHARED_RENDER_MS = 1000;

/**
 * How many correct answers one fallback question accepts: a handful of the
 * visitors who shared its render, never an unlimited supply for a bot.
 */
export const ANSWERS_PER_SHARED_QUESTION = 3;

/** `make` runs once per shared render; everybody asking within it gets the same value. */
export function perSharedRender<T>(make: (now: number) => T): (now?: number) => T {
  let current: { value: T; until: number } | null = null;
  return (now = Date.now()) => {
    if (!current || now >= current.until) current = { value: make(now), until: now + SHARED_RENDER_MS };
    return current.value;
  };
}
