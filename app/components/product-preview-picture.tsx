import { createContext, useContext, useState } from "react";

const PICTURE_ID = "product-preview";

const ProductPreviewMarkupContext = createContext<string | null>(null);

/** Set by the server render only, with the drawing of components/product-preview.tsx. */
export const ProductPreviewMarkupProvider = ProductPreviewMarkupContext.Provider;

/**
 * The phone beside the hero's text. The server draws it into the HTML; the browser keeps what the page already holds
 * (as the inline stylesheet does), so the drawing is sent once and never again as JavaScript. Not one module with the
 * stylesheet's: shared by the root and the page, it would be one more chunk for the boot to fetch.
 */
export function ProductPreviewPicture({ className }: { className: string }) {
  const serverMarkup = useContext(ProductPreviewMarkupContext);
  const [markup] = useState(() => serverMarkup ?? document.getElementById(PICTURE_ID)?.innerHTML ?? "");
  return <div id={PICTURE_ID} className={className} dangerouslySetInnerHTML={{ __html: markup }} />;
}
