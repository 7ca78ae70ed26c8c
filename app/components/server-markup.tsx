import { createContext, useContext, useState } from "react";

type MarkupId = "page-css" | "product-preview";

const ServerMarkupContext = createContext<Partial<Record<MarkupId, string>>>({});

/** Set by the server render only: the stylesheet's text and the drawing of components/product-preview.tsx. */
export const ServerMarkupProvider = ServerMarkupContext.Provider;

/** Written into the HTML by the server; the browser keeps what the page holds: sent once, never again as JavaScript. */
function useServerMarkup(id: MarkupId): string {
  const serverMarkup = useContext(ServerMarkupContext)[id];
  const [markup] = useState(() => serverMarkup ?? document.getElementById(id)?.innerHTML ?? "");
  return markup;
}

/**
 * The page's whole stylesheet (a few KB gzip) inlined in <head>, so the first
 * paint waits for no request: on a slow phone link it would otherwise share
 * the bandwidth with the JavaScript the page preloads.
 */
export function InlineStylesheet() {
  return <style id="page-css" dangerouslySetInnerHTML={{ __html: useServerMarkup("page-css") }} />;
}

/** The phone beside the hero's text. */
export function ProductPreviewPicture({ className }: { className: string }) {
  const markup = useServerMarkup("product-preview");
  return <div id="product-preview" className={className} dangerouslySetInnerHTML={{ __html: markup }} />;
}
