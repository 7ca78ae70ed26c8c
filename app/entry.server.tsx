import type { EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToStaticMarkup, renderToString } from "react-dom/server";
import { InlineCssProvider } from "./components/inline-stylesheet";
import { ProductPreview } from "./components/product-preview";
import { ProductPreviewMarkupProvider } from "./components/product-preview-picture";
import { forBarePath, isShareable } from "./page/shared-render.server";
import { readPublicFile } from "./server/app-files.server";
import { isHttps } from "./server/client-address.server";
import { logError, logEvent } from "./server/log.server";
import { setSecurityHeaders } from "./server/security-headers.server";
import { insight, pages, settings } from "./services.server";
import stylesheetUrl from "./tailwind.css";

const development = settings.NODE_ENV === "development";
/** Read once in production; the dev server rebuilds it, so read it per render there. */
const productionCss = development ? null : readPublicFile(stylesheetUrl);
/** The hero's drawing, made once: it never changes while the process runs. */
const productPreview = renderToStaticMarkup(<ProductPreview />);

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  // Here rather than in routes/$.tsx: see its loader.
  if (responseStatusCode === 404) logEvent("not-found", { path: new URL(request.url).pathname });
  const shareable = isShareable(request, responseStatusCode, remixContext);
  if (shareable) insight.pageAnswered(request);
  const context = shareable ? forBarePath(remixContext) : remixContext;
  return pages.respond({
    request,
    status: responseStatusCode,
    headers: responseHeaders,
    shareable,
    https: isHttps(request, settings.TRUST_PROXY),
    development,
    render: () =>
      renderToString(
        <InlineCssProvider value={productionCss ?? readPublicFile(stylesheetUrl)}>
          <ProductPreviewMarkupProvider value={productPreview}>
            <RemixServer context={context} url={request.url} />
          </ProductPreviewMarkupProvider>
        </InlineCssProvider>,
      ),
  });
}

/** Data answers are per request: never kept by a shared cache, however the request spelled `_data`. */
export const handleDataRequest: HandleDataRequestFunction = (response, { request }) => {
  response.headers.set("Cache-Control", "no-store");
  setSecurityHeaders(response.headers, { https: isHttps(request, settings.TRUST_PROXY) });
  return response;
};

export const handleError: HandleErrorFunction = (error, { request }) => {
  // A visitor who closed the tab is not an error of ours.
  if (request.signal.aborted) return;
  logError("server-error", error, { method: request.method, path: new URL(request.url).pathname });
};
