import { once } from "node:events";
import { get as httpGet, type IncomingMessage } from "node:http";
import { text } from "node:stream/consumers";
import type { Page } from "@playwright/test";
import { content } from "~/content";
import { freePort, startApp, type RunningApp } from "../harness/app-server";
import { expect, test } from "./fixtures";

/** What WhatsApp still shows as a preview. */
const MAX_SHARE_IMAGE_BYTES = 300 * 1024;
const ALT = content.meta.shareImageAlt;

/** Width and height from a PNG's header (its IHDR chunk), or null when it is no PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | null {
  const signature = "89504e470d0a1a0a";
  if (bytes.subarray(0, 8).toString("hex") !== signature || bytes.subarray(12, 16).toString() !== "IHDR") return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const metaContent = (page: Page, key: string) =>
  page.locator(`meta[property="${key}"], meta[name="${key}"]`).getAttribute("content");

test("the head carries title, description, theme colour, favicon and a 180×180 home-screen icon; without PUBLIC_URL a plain card, and no picture, canonical address or og:url", async ({
  page,
  request,
}) => {
  await page.goto("/");
  await expect(page).toHaveTitle("Prevly — sua previdência privada em um só app");
  expect(await metaContent(page, "description")).toContain("previdência privada");
  expect(await metaContent(page, "og:title")).toBe("Prevly — sua previdência privada em um só app");
  expect(await metaContent(page, "og:locale")).toBe("pt_BR");
  expect(await metaContent(page, "twitter:card")).toBe("summary");
  expect(await metaContent(page, "theme-color")).toMatch(/^#[0-9a-f]{6}$/i);
  for (const property of ["og:image", "og:image:width", "og:image:height", "og:image:alt", "og:url"]) {
    await expect(page.locator(`meta[property="${property}"]`), property).toHaveCount(0);
  }
  await expect(page.locator('link[rel="canonical"]')).toHaveCount(0);
  const favicon = await page.locator('link[rel="icon"]').getAttribute("href");
  expect((await request.get(favicon!)).headers()["content-type"]).toContain("image/svg+xml");
  // What a phone's home screen shows.
  const touchIcon = await request.get((await page.locator('link[rel="apple-touch-icon"]').getAttribute("href"))!);
  expect(touchIcon.headers()["content-type"]).toBe("image/png");
  expect(pngSize(await touchIcon.body())).toEqual({ width: 180, height: 180 });
});

test.describe("with PUBLIC_URL", () => {
  let app: RunningApp;
  test.beforeAll(async () => {
    const port = await freePort();
    // The page's public address is this server's own, so the picture can be fetched from it.
    app = await startApp(
      { PUBLIC_URL: `http://127.0.0.1:${port}/`, SIGNUP_SECRET: "link-preview-secret-0123456789abcdef" },
      { expectPort: port },
    );
  });
  test.afterAll(async () => {
    await app?.stop();
  });

  test("the link preview has a 1200×630 PNG under 300 KB, its size and alt text, og:url and canonical, none of them from a forged Host", async ({
    page,
    request,
  }) => {
    await page.goto(app.origin);
    const imageUrl = await metaContent(page, "og:image");
    expect(imageUrl).toBe(`${app.origin}/og-image.png`);
    expect(await metaContent(page, "og:url")).toBe(`${app.origin}/`);
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", `${app.origin}/`);
    expect(await metaContent(page, "twitter:card")).toBe("summary_large_image");
    expect(await metaContent(page, "og:image:alt")).toBe(ALT);
    expect(await metaContent(page, "twitter:image:alt")).toBe(ALT);
    expect(await metaContent(page, "og:image:type")).toBe("image/png");

    const image = await request.get(imageUrl!);
    expect(image.status()).toBe(200);
    expect(image.headers()["content-type"]).toBe("image/png");
    // Crawlers and browsers may keep it an hour; a new picture reaches them within that.
    expect(image.headers()["cache-control"]).toBe("public, max-age=3600");
    const bytes = await image.body();
    expect(bytes.byteLength).toBeLessThan(MAX_SHARE_IMAGE_BYTES);
    const size = pngSize(bytes);
    expect(size).toEqual({ width: 1200, height: 630 });
    expect(await metaContent(page, "og:image:width")).toBe(String(size!.width));
    expect(await metaContent(page, "og:image:height")).toBe(String(size!.height));

    // A forged Host header never reaches the addresses, not even in the render shared with others: Node's client sends
    // the Host it is given, as anyone's script can.
    const { hostname, port } = new URL(app.origin);
    const outgoing = httpGet({ hostname, port, path: "/", headers: { host: "atacante.exemplo" } });
    const forged = await text((await once(outgoing, "response"))[0] as IncomingMessage);
    expect(forged).toContain(`<link rel="canonical" href="${app.origin}/"/>`);
    expect(forged).toContain(`content="${app.origin}/og-image.png"`);
    expect(forged).not.toContain("atacante.exemplo");
    const next = await (await fetch(`${app.origin}/`)).text();
    expect(next).not.toContain("atacante.exemplo");
  });
});
