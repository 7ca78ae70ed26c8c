import type { IncomingHttpHeaders } from "node:http";
import { PEER_ADDRESS_HEADER } from "./client-address.server";
import { percentDecoded } from "./percent-decoding.server";

/** On a request Remix's own script sent (`?_data=<route id>`): the route id. */
export const DATA_REQUEST_HEADER = "x-landing-data-request";
/** Remix cannot even build a Request for TRACE or TRACK. */
const ANSWERED_METHODS = "GET, HEAD, POST";
/** A Host header as a URL's authority: a name or an address, and a port; `new URL()` still throws on some. */
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const INVALID = "Requisição inválida.";
const NOT_ALLOWED = "Método não permitido.";
const OTHER_SITE = "Envio recusado: o formulário veio de outro endereço. Abra a página e envie de novo.";
/** What Node's parser refuses before a request exists, by its error code, with the status Node itself would send. */
const PARSER_REFUSALS: Record<string, { status: 408 | 413 | 431; text: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, text: "Cabeçalhos grandes demais." },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, text: "Requisição grande demais." },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: "A requisição demorou demais para chegar. Tente de novo." },
};

export type EdgeRequest = { method: string; target: string; headers: IncomingHttpHeaders; peerAddress: string };
/** What the edge needs to know: the site's public origin (PUBLIC_URL's) and the paths answered before Remix. */
export type EdgeSettings = {
  publicOrigin: string | undefined;
  earlyAnswers: ReadonlyMap<string, { methods: readonly string[] }>;
};
/** Remix gets the request with this target and these headers; `signup` marks the form's post. */
export type HandOn = { kind: "remix"; target: string; headers: IncomingHttpHeaders; signup: boolean };
type Refusal = { kind: "refuse"; status: 400 | 403 | 405; text: string; allow?: string; originMismatch?: boolean };
export type Decision =
  | Refusal
  | { kind: "redirect"; location: string }
  /** Answered before Remix by the early answer of `path`, or, when it declines, as `otherwise` says (made then). */
  | { kind: "early"; path: string; otherwise: () => HandOn }
  | HandOn;

/** What happens to a request before Remix, decided from its request line, headers and peer alone (decision 005). */
export function decide(request: EdgeRequest, settings: EdgeSettings): Decision {
  const { method, headers } = request;
  if (!ANSWERED_METHODS.split(", ").includes(method)) return refuse(405, NOT_ALLOWED, ANSWERED_METHODS);
  // Remix builds the request's URL from Host and the target: one it cannot parse would be a 500 and a stack per
  // request; a Host holding a path or a target like `//` would be misread. `//x` is a path here, never another host.
  const target = originForm(request.target);
  const url = target !== undefined && isUrlHost(headers.host ?? "") ? URL.parse(`http://site${target}`) : null;
  if (target === undefined || !url) return refuse(400, INVALID);
  const routeId = url.searchParams.get("_data");
  const early = settings.earlyAnswers.get(url.pathname);
  if (early?.methods.includes(method) && routeId === null)
    return { kind: "early", path: url.pathname, otherwise: () => handOn(request, target, routeId, false) };
  const signup = method === "POST";
  if (signup && !(url.pathname === "/" && url.searchParams.has("index"))) return refuse(405, NOT_ALLOWED, "GET, HEAD");
  // A post from another site is refused here, in Portuguese. Remix's own check answers an empty 500 (a 5xx at
  // anyone's will) to any Origin but Host's, `null` and the public address behind a proxy that rewrites Host
  // included: once this one has passed, Remix is not asked.
  if (signup && !fromThisSite(headers.origin, headers.host, settings.publicOrigin))
    return { ...refuse(403, OTHER_SITE), originMismatch: true };
  // One spelling per path: `//` rendered the page with its form posting to `//?index`.
  if (url.pathname.includes("//"))
    return { kind: "redirect", location: url.pathname.replace(/\/{2,}/g, "/") + url.search };
  // `/%5C` decodes to a backslash, on which React Router's `new URL()` throws: a 500 at anyone's will.
  if (/%5c/i.test(url.pathname)) return refuse(400, INVALID);
  if (routeId !== null && !isOwnDataRequest(method, url.pathname, routeId)) return refuse(400, INVALID);
  return handOn(request, target, routeId, signup);
}

/** The answer to a request Node's parser refused (a malformed request line, headers past its limit, a request not
 * whole in time): the status Node would send, with Portuguese text instead of none. */
export function parserRefusal(errorCode: string | undefined): { status: number; text: string } {
  return PARSER_REFUSALS[errorCode ?? ""] ?? { status: 400, text: INVALID };
}

function refuse(status: Refusal["status"], text: string, allow?: string): Refusal {
  return { kind: "refuse", status, text, allow };
}

function handOn(request: EdgeRequest, target: string, routeId: string | null, signup: boolean): HandOn {
  const headers: IncomingHttpHeaders = { ...request.headers, [PEER_ADDRESS_HEADER]: request.peerAddress };
  // Remix takes `_data` out of the request a route's action reads: it is told here, whatever a client sent.
  if (routeId === null) delete headers[DATA_REQUEST_HEADER];
  else headers[DATA_REQUEST_HEADER] = routeId;
  // Remix's adapter takes the port from it, and anyone can send it (`evil:99999` was a 500 on every route).
  delete headers["x-forwarded-host"];
  if (signup) delete headers.origin;
  return { kind: "remix", target: withDecodablePath(target), headers, signup };
}

/** The data requests the page's own script makes (`?_data=<route id>`); Remix answers any other in English JSON. */
function isOwnDataRequest(method: string, path: string, routeId: string): boolean {
  if (method === "POST") return path === "/" && routeId === "routes/_index";
  return routeId === (path === "/" ? "routes/_index" : "routes/$");
}

/** Past HOST's shape, what Remix's `new URL()` throws on: `999.999.999.999`, a port past 65535. */
const isUrlHost = (host: string) => HOST.test(host) && URL.canParse(`http://${host}/`);

/** The request target as a path (`/a?b`; an absolute-form target cut to it), or undefined when it names none (`*`). */
function originForm(target: string): string | undefined {
  if (target.startsWith("/")) return target;
  const url = URL.parse(target);
  return url?.protocol === "http:" || url?.protocol === "https:" ? url.pathname + url.search : undefined;
}

/** express answers a path it cannot percent-decode (`/%`) with its English 400: escaped, it reaches our 404. */
function withDecodablePath(url: string): string {
  const path = url.split("?", 1)[0]!;
  return percentDecoded(path) === null ? path.replaceAll("%", "%25") + url.slice(path.length) : url;
}

/**
 * Whether a post's Origin is this site: the Host it reached (read as the Origin's scheme writes it: a proxy may keep
 * capitals or name the default port), or PUBLIC_URL behind a proxy that rewrites Host. An absent or opaque (`null`)
 * Origin names no other site; such a post still needs the page's signed fields, which another site cannot read.
 */
function fromThisSite(origin: string | undefined, host: string | undefined, publicOrigin: string | undefined): boolean {
  if (!origin || origin === "null") return true;
  const from = URL.parse(origin);
  return origin === publicOrigin || (from !== null && from.host === URL.parse(`${from.protocol}//${host}`)?.host);
}
