import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { documentCsp, setSecurityHeaders } from "~/server/security-headers.server";
import { SHARED_RENDER_MS } from "./shared-render.server";

type Encoding = "br" | "gzip" | "identity";

type RenderedPage = {
  bodies: Record<Encoding, Uint8Array<ArrayBuffer>>;
  etag: string;
  csp: string;
};

export type DocumentRequest = {
  request: Request;
  status: number;
  headers: Headers;
  /** Whether this exact render may be shared with other visitors for a moment. */
  shareable: boolean;
  https: boolean;
  development: boolean;
  render: () => string;
};

/**
 * Turns a render into the document response. A shareable render (the landing
 * page on GET, no form result) is made once per SHARED_RENDER_MS per path and kept
 * compressed as brotli and gzip, so most visitors cost no rendering and no
 * compression, whatever query string the link carried; its ETag answers
 * conditional requests with 304. Values that change per render (bot-trap
 * timestamp, fallback question) are valid for everyone who receives them
 * within that time.
 */
export class PageCache {
  /** Few paths are shareable (the landing page); the bound only guards against surprises. */
  private readonly pages = new LRUCache<string, RenderedPage>({
    max: 64,
    ttl: SHARED_RENDER_MS,
    // The wall clock, like the form tokens rendered into the page.
    perf: { now: () => Date.now() },
  });

  respond(document: DocumentRequest): Response {
    const { request, shareable } = document;
    if (!shareable) return this.uncachedResponse(document);

    // One render per path: what may be shared depends on no query parameter (see entry.server.tsx).
    const key = new URL(request.url).pathname;
    let page = this.pages.get(key);
    if (!page) {
      page = this.renderPage(document);
      this.pages.set(key, page);
    }

    const headers = new Headers(document.headers);
    headers.set("Content-Type", "text/html; charset=utf-8");
    headers.set("Cache-Control", "no-cache");
    headers.set("ETag", page.etag);
    headers.set("Vary", "Accept-Encoding");
    setSecurityHeaders(headers, { csp: page.csp, https: document.https });
    if (
      request.headers
        .get("if-none-match")
        ?.split(/\s*,\s*/)
        .includes(page.etag)
    ) {
      return new Response(null, { status: 304, headers });
    }
    const encoding = preferredEncoding(request.headers.get("accept-encoding"));
    if (encoding !== "identity") headers.set("Content-Encoding", encoding);
    const body = page.bodies[encoding];
    headers.set("Content-Length", String(body.byteLength));
    return new Response(body, { status: document.status, headers });
  }

  private renderPage(document: DocumentRequest): RenderedPage {
    const html = `<!DOCTYPE html>${document.render()}`;
    const identity = new TextEncoder().encode(html);
    return {
      bodies: {
        identity,
        gzip: new Uint8Array(gzipSync(identity, { level: 9 })),
        br: new Uint8Array(
          brotliCompressSync(identity, {
            params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.byteLength },
          }),
        ),
      },
      etag: `W/"${createHash("sha1").update(identity).digest("base64url")}"`,
      csp: documentCsp(html, { development: document.development }),
    };
  }

  /** Form results and error pages: rendered each time, never stored anywhere. */
  private uncachedResponse(document: DocumentRequest): Response {
    const html = `<!DOCTYPE html>${document.render()}`;
    const headers = new Headers(document.headers);
    headers.set("Content-Type", "text/html; charset=utf-8");
    headers.set("Cache-Control", "no-store");
    setSecurityHeaders(headers, {
      csp: documentCsp(html, { development: document.development }),
      https: document.https,
    });
    return new Response(html, { status: document.status, headers });
  }
}

/** br over gzip over nothing, honouring q=0. */
export function preferredEncoding(acceptEncoding: string | null): Encoding {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? "").toLowerCase().split(",")) {
    const [name, ...params] = part.split(";").map((piece) => piece.trim());
    const refused = params.some((param) => /^q=0(\.0*)?$/.test(param));
    if (name && !refused) accepted.add(name);
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip") || accepted.has("*")) return "gzip";
  return "identity";
}
