/**
 * The pictures made by `npm run share-images` (scripts/make-share-images.ts)
 * into public/: the link preview that WhatsApp, Instagram, LinkedIn and X show
 * (PNG, kept under 300 KB, which WhatsApp needs) and the icon a phone puts on
 * its home screen. remix-serve serves them with an hour's cache.
 */
export const SHARE_IMAGE = { path: "/og-image.png", width: 1200, height: 630 } as const;
export const TOUCH_ICON = { path: "/apple-touch-icon.png", width: 180, height: 180 } as const;
