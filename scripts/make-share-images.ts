/**
 * `npm run share-images`: draws the link preview (public/og-image.png, 1200×630) and the
 * home-screen icon (public/apple-touch-icon.png, 180×180) in Chromium at their exact pixel
 * size, from the page's own copy (app/content.ts), palette and product drawing
 * (app/components/product-preview.tsx). Run it after changing any of those, look at the two
 * files and commit them.
 */
import { chromium } from "@playwright/test";
import { statSync } from "node:fs";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { ICON_PATHS } from "../app/components/icons";
import { ProductPreview } from "../app/components/product-preview";
import { content } from "../app/content";
import { chromiumFlags, chromiumPath } from "../tests/harness/chromium";
import { ROOT } from "../tests/harness/app-server";

/** What WhatsApp still shows as a preview. */
const MAX_SHARE_IMAGE_BYTES = 300 * 1024;

const { shareImage, touchIcon } = content.meta;
/** The page's font stack and hero colours (tailwind.config.ts). */
const FONT = `system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif`;
const HERO_BACKGROUND = "linear-gradient(to bottom, #0c453b, #0d5446)";

const logo = (size: number, strokeWidth: number) =>
  `<svg width="${size}" height="${size}" viewBox="0 0 24 24" fill="none" stroke="#fbbf24" stroke-width="${strokeWidth}" ` +
  `stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="${ICON_PATHS.logo}"/></svg>`;

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const page = (width: number, height: number, body: string) => `<!DOCTYPE html>
<html lang="pt-BR"><head><meta charset="utf-8"><style>
  * { box-sizing: border-box; margin: 0; }
  html, body { width: ${width}px; height: ${height}px; overflow: hidden; }
  body { font-family: ${FONT}; background: ${HERO_BACKGROUND}; color: #fff; -webkit-font-smoothing: antialiased; }
</style></head><body>${body}</body></html>`;

const shareImagePage = page(
  shareImage.width,
  shareImage.height,
  `<div style="position:absolute; left:72px; top:64px; width:680px">
     <div style="display:flex; align-items:center; gap:14px">
       ${logo(52, 1.9)}
       <span style="font-size:40px; font-weight:700; letter-spacing:-0.02em">${escape(content.site.name)}</span>
     </div>
     <h1 style="margin-top:44px; font-size:64px; line-height:1.1; font-weight:700; letter-spacing:-0.02em; text-wrap:balance">
       ${escape(content.hero.title)}
     </h1>
     <p style="margin-top:40px; display:inline-flex; align-items:center; gap:12px; padding:10px 22px;
               border:2px solid rgba(167,243,218,.4); border-radius:999px; background:rgba(255,255,255,.1);
               color:#d1faed; font-size:24px; font-weight:700">
       <span style="width:12px; height:12px; border-radius:50%; background:#fbbf24"></span>${escape(content.banner)}
     </p>
   </div>
   <div style="position:absolute; right:96px; top:45px; width:270px; filter:drop-shadow(0 25px 25px rgb(0 0 0 / .25))">
     ${renderToStaticMarkup(createElement(ProductPreview))}
   </div>`,
);

/** iOS rounds the corners itself: the icon fills its square. */
const touchIconPage = page(
  touchIcon.width,
  touchIcon.height,
  `<div style="display:flex; width:100%; height:100%; align-items:center; justify-content:center">${logo(124, 1.7)}</div>`,
);

const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
try {
  for (const [html, { path, width, height }] of [
    [shareImagePage, shareImage],
    [touchIconPage, touchIcon],
  ] as const) {
    const tab = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
    await tab.setContent(html);
    const file = `${ROOT}public${path}`;
    await tab.screenshot({ path: file, type: "png" });
    await tab.close();
    console.log(`public${path}: ${width}×${height}, ${statSync(file).size.toLocaleString("en")} bytes`);
  }
  const shareImageBytes = statSync(`${ROOT}public${shareImage.path}`).size;
  if (shareImageBytes > MAX_SHARE_IMAGE_BYTES) {
    console.error(
      `public${shareImage.path} is over ${MAX_SHARE_IMAGE_BYTES / 1024} KB: WhatsApp would show no picture`,
    );
    process.exitCode = 1;
  }
} finally {
  await browser.close();
}
