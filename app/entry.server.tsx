import type { EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToString } from "react-dom/server";
import { InlineCssProvider } from "./components/inline-stylesheet";
import stylesheetUrl from "./tailwind.css";
import { isHttps } from "./utils/client-address.server";
import { env } from "./utils/env.server";
import { installGracefulStop } from "./utils/graceful-stop.server";
import { logEvent } from "./utils/log.server";
import { PageCache } from "./utils/page-cache.server";
import { readPublicFile } from "./utils/public-file.server";
import { setSecurityHeaders } from "./utils/security-headers.server";
import { installServerGuards } from "./utils/server-guards.server";

installServerGuards();
installGracefulStop();

const pages = new PageCache();
const development = env.NODE_ENV === "development";
/** Read once in production; the dev server rebuilds it, so read it per render there. */
const productionCss = development ? null : readPublicFile(stylesheetUrl);

/** A leaf route opts in to shared renders with `handle = { shareRender: true }`. */
function isShareable(request: Request, status: number, context: EntryContext): boolean {
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
function withoutQuery(context: EntryContext): EntryContext {
  const state = context.staticHandlerContext;
  return { ...context, staticHandlerContext: { ...state, location: { ...state.location, search: "" } } };
}

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  const shareable = isShareable(request, responseStatusCode, remixContext);
  const context = shareable ? withoutQuery(remixContext) : remixContext;
  return pages.respond({
    request,
    status: responseStatusCode,
    headers: responseHeaders,
    shareable,
    https: isHttps(request, env.TRUST_PROXY),
    development,
    render: () =>
      renderToString(
        <InlineCssProvider value={productionCss ?? readPublicFile(stylesheetUrl)}>
          <RemixServer context={context} url={request.url} />
        </InlineCssProvider>,
      ),
  });
}

export const handleDataRequest: HandleDataRequestFunction = (response, { request }) => {
  setSecurityHeaders(response.headers, { https: isHttps(request, env.TRUST_PROXY) });
  return response;
};

export const handleError: HandleErrorFunction = (error, { request }) => {
  // A visitor who closed the tab is not an error of ours.
  if (request.signal.aborted) return;
  const { name, message, stack } =
    error instanceof Error ? error : { name: typeof error, message: String(error), stack: "" };
  logEvent("server-error", {
    method: request.method,
    path: new URL(request.url).pathname,
    name,
    message,
    at: stack?.split("\n")[1]?.trim(),
  });
};
