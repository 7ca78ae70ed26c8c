import { createContext, useContext, useState } from "react";

const InlineCssContext = createContext<string | null>(null);

/** Set by the server render only; the browser reuses the text already in the page. */
export const InlineCssProvider = InlineCssContext.Provider;

const STYLE_ID = "page-css";

/** The page's whole stylesheet (a few KB gzip) inlined in <head>, so the first paint waits for no request. */
export function InlineStylesheet() {
  const serverCss = useContext(InlineCssContext);
  const [css] = useState(() => serverCss ?? document.getElementById(STYLE_ID)?.textContent ?? "");
  return <style id={STYLE_ID} dangerouslySetInnerHTML={{ __html: css }} />;
}
