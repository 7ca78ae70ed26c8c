import type { EntryContext } from "@remix-run/node";

/**
 * The one rule of the shared render (decision 009): the landing page is
 * rendered once per second and that render, with the form tokens in it (the
 * bot trap's timestamp, the fallback question), is handed to every visitor of
 * that second. The page cache and the form tokens follow it from here.
 */
export const SHARED_RENDER_MS = 1000;

/** `make` runs once per shared render; everybody asking within it gets the same value. */
export function perSharedRender<T>(make: (now: number) => T): (now?: number) => T {
  let current: { value: T; until: number } | null = null;
  return (now = Date.now()) => {
    if (!current || now >= current.until) current = { value: make(now), until: now + SHARED_RENDER_MS };
    return current.value;
  };
}

/** Whether this render may be shared: a leaf route opts in with `handle = { shareRender: true }`, GET only, no form result. */
export function isShareable(request: Request, status: number, context: EntryContext): boolean {
  const { staticHandlerContext: state, routeModules } = context;
  if ((request.method !== "GET" && request.method !== "HEAD") || status !== 200) return false;
  if (state.actionData || state.errors) return false;
  const leaf = state.matches[state.matches.length - 1];
  const handle = leaf ? (routeModules[leaf.route.id]?.handle as { shareRender?: boolean } | undefined) : undefined;
  return handle?.shareRender === true;
}

/**
 * The shared render is made for the bare path: the page reads no query
 * parameter, and a campaign's click id (fbclid, gclid, utm_*) must neither
 * cost a render of its own nor be handed to the next visitors in the form's
 * action. The browser's router still sees the real address.
 */
export function forBarePath(context: EntryContext): EntryContext {
  const state = context.staticHandlerContext;
  return { ...context, staticHandlerContext: { ...state, location: { ...state.location, search: "" } } };
}
