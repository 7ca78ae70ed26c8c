import type { EntryContext } from "@remix-run/node";

/** The shared render's one rule (decision 009): a render and its form tokens serve every visitor of that second. */
export const SHARED_RENDER_MS = 1000;

export function perSharedRender<T>(make: (now: number) => T): (now?: number) => T {
  let current: { value: T; until: number } | null = null;
  return (now = Date.now()) => {
    if (!current || now >= current.until) current = { value: make(now), until: now + SHARED_RENDER_MS };
    return current.value;
  };
}

/** A leaf route opts in with `handle = { shareRender: true }`; GET or HEAD, 200, no form result. */
export function isShareable(request: Request, status: number, context: EntryContext): boolean {
  const { staticHandlerContext: state, routeModules } = context;
  if ((request.method !== "GET" && request.method !== "HEAD") || status !== 200) return false;
  if (state.actionData || state.errors) return false;
  const leaf = state.matches[state.matches.length - 1];
  const handle = leaf ? (routeModules[leaf.route.id]?.handle as { shareRender?: boolean } | undefined) : undefined;
  return handle?.shareRender === true;
}

/** The page reads no query, and a click id (fbclid, utm_*) must not reach the next visitors in the form's action. */
export function forBarePath(context: EntryContext): EntryContext {
  const state = context.staticHandlerContext;
  return { ...context, staticHandlerContext: { ...state, location: { ...state.location, search: "" } } };
}
