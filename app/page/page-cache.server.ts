import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import Negotiator from "negotiator";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { documentCsp, setSecurityHeaders } from "~/server/security-headers.server";
import { SHARED_RENDER_MS } from "./shared-render.server";

type Encoding = "br" | "gzip" | "identity";

/**
 * The one mark of an answer a shared cache may keep (docs/operations.md, "The page cache at nginx"): browsers revalidate
 * it by its ETag, a shared cache (the shipped nginx, a CDN) keeps it for the shared render's second. Every other answer
 * of the app is `no-store`, so a cache that stores only this mark can hold nothing but the page, whatever a request
 * looked like.
 */
export const SHARED_PAGE_CACHE_CONTROL = `public, max-age=0, s-maxage=${SHARED_RENDER_MS / 1000}`;

/**
 * Chosen by measurement on this page (docs/performance.md, "The server"): past these,
 * a fresh render pays milliseconds (brotli 9: 16 ms) for tens of bytes, while all of them fit
 * the first TCP round trip.
 */
const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;

/** A render with what it was answered with: Remix's status and headers for it. */
type RenderedPage = {
  bodies: Record<Encoding, Uint8Array<ArrayBuffer>>;
  etag: string;
  csp: string;
  status: number;
  headers: Headers;
  /** Each answer made of it, by encoding (or 304) and HTTPS: a launch's flood asks for the same few. */
  answers: Map<string, PageAnswer>;
};
/** What a request for the page says of the answer it may take. */
type PageAsk = { ifNoneMatch: string | null; acceptEncoding: string | null; https: boolean };
/** `headerLines`: the headers as Node's `writeHead` takes them, names and values in turn. */
type PageAnswer = {
  status: number;
  headers: Headers;
  headerLines: string[];
  body: Uint8Array<ArrayBuffer> | null;
};

type DocumentRequest = {
  request: Request;
  status: number;
  headers: Headers;
  shareable: boolean;
  https: boolean;
  development: boolean;
  render: () => string;
};

/** A shareable render is made once a second per path, whatever the query, and kept compressed (decision 009). */
export class PageCache {
  /** Few paths are shareable (the landing page); the bound only guards against surprises. */
  private readonly pages = new LRUCache<string, RenderedPage>({
    max: 64,
    ttl: SHARED_RENDER_MS,
    // The wall clock, like the form tokens rendered into the page.
    perf: { now: () => Date.now() },
  });

  respond(document: DocumentRequest): Response {
    const { request, status, https, development } = document;
    if (!document.shareable) {
      const html = `<!DOCTYPE html>${document.render()}`;
      const headers = htmlHeaders(document.headers, "no-store");
      setSecurityHeaders(headers, { csp: documentCsp(html, { development }), https });
      return new Response(html, { status, headers });
    }

    // One render per path: what may be shared depends on no query parameter (see entry.server.tsx).
    const key = new URL(request.url).pathname;
    let page = this.pages.get(key);
    if (!page) {
      page = renderPage(document);
      this.pages.set(key, page);
    }

    const ask = {
      ifNoneMatch: request.headers.get("if-none-match"),
      acceptEncoding: request.headers.get("accept-encoding"),
    };
    const { status: answered, headers, body } = answerFrom(page, { ...ask, https });
    return new Response(body, { status: answered, headers });
  }

  /** The fresh shared render of `path` as `respond` answers it, without asking Remix; null when there is none. */
  answerEarly(path: string, ask: PageAsk): PageAnswer | null {
    const page = this.pages.get(path);
    return page ? answerFrom(page, ask) : null;
  }
}

function answerFrom(page: RenderedPage, { ifNoneMatch, acceptEncoding, https }: PageAsk): PageAnswer {
  // `*` matches any current page (RFC 9110, 13.1.2).
  const revalidated = ifNoneMatch?.trim() === "*" || ifNoneMatch?.split(/\s*,\s*/).includes(page.etag) === true;
  const encoding = revalidated ? "304" : preferredEncoding(acceptEncoding);
  const key = `${encoding} ${String(https)}`;
  let answer = page.answers.get(key);
  if (answer) return answer;
  const headers = htmlHeaders(page.headers, SHARED_PAGE_CACHE_CONTROL);
  headers.set("ETag", page.etag);
  headers.set("Vary", "Accept-Encoding");
  setSecurityHeaders(headers, { csp: page.csp, https });
  if (encoding === "304") answer = { status: 304, headers, headerLines: [...headers].flat(), body: null };
  else {
    if (encoding !== "identity") headers.set("Content-Encoding", encoding);
    const body = page.bodies[encoding];
    headers.set("Content-Length", String(body.byteLength));
    answer = { status: page.status, headers, headerLines: [...headers].flat(), body };
  }
  page.answers.set(key, answer);
  return answer;
}

function htmlHeaders(base: Headers, cacheControl: string): Headers {
  const headers = new Headers(base);
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set("Cache-Control", cacheControl);
  return headers;
}

function renderPage(document: DocumentRequest): RenderedPage {
  const html = `<!DOCTYPE html>${document.render()}`;
  const identity = new TextEncoder().encode(html);
  const brotli = { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.byteLength };
  return {
    bodies: {
      identity,
      gzip: new Uint8Array(gzipSync(identity, { level: GZIP_LEVEL })),
      br: new Uint8Array(brotliCompressSync(identity, { params: brotli })),
    },
    etag: `W/"${createHash("sha1").update(identity).digest("base64url")}"`,
    csp: documentCsp(html, { development: document.development }),
    status: document.status,
    headers: new Headers(document.headers),
    answers: new Map(),
  };
}

/** Browsers send a handful of spellings: each is negotiated once, and forgotten with the rest past NEGOTIATED_KEPT. */
const negotiated = new Map<string, Encoding>();
const NEGOTIATED_KEPT = 64;

/** br over gzip over nothing, whatever the q order, honouring q=0; `*` gets gzip: br only to a client that names it. */
export function preferredEncoding(acceptEncoding: string | null): Encoding {
  const known = negotiated.get(acceptEncoding ?? "");
  if (known) return known;
  const encoding = negotiatedEncoding(acceptEncoding);
  if (negotiated.size >= NEGOTIATED_KEPT) negotiated.clear();
  negotiated.set(acceptEncoding ?? "", encoding);
  return encoding;
}

function negotiatedEncoding(acceptEncoding: string | null): Encoding {
  const accepted = new Negotiator({ headers: { "accept-encoding": acceptEncoding?.toLowerCase() } });
  if (accepted.encodings().includes("br")) return "br";
  // Asked of gzip itself, so that `*` allows it and `gzip;q=0, *` does not.
  if (accepted.encodings(["gzip"]).length > 0) return "gzip";
  return "identity";
}
