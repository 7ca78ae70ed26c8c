import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { content } from "~/content";
import { PEER_ADDRESS_HEADER } from "./client-address.server";
import { percentDecoded } from "./percent-decoding.server";

/** On a request Remix's own script sent (`?_data=<route id>`): the route id. */
export const DATA_REQUEST_HEADER = "x-landing-data-request";
/** Remix cannot even build a Request for TRACE or TRACK. */
const ANSWERED_METHODS = "GET, HEAD, POST";
/** A Host header as a URL's authority: a name or an address, and a port; `new URL()` still throws on some. */
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const { refusals } = content;

/** What the edge needs to know: the site's public origin (PUBLIC_URL's) and the paths answered before Remix. */
export type EdgeSettings = {
  publicOrigin: string | undefined;
  earlyAnswers: ReadonlyMap<string, { methods: readonly string[] }>;
};
/** What Remix gets (`early`: once its path's early answer declines); `signup` marks the form's post. */
type HandOn = { kind: "remix"; target: string; headers: IncomingHttpHeaders; signup: boolean; early?: true };
type Fate =
  | { kind: "refuse"; status: 400 | 403 | 405; text: string; allow?: string }
  | { kind: "redirect"; location: string }
  | HandOn;
/** A request's fate, with the path it names however its target was spelled ("" when none can be read). */
export type Decision = Fate & { path: string };

/** What happens to a request before Remix, decided from its request line, headers and peer alone (decision 005). */
export function decide(request: IncomingMessage, settings: EdgeSettings): Decision {
  // Remix builds the request's URL from Host and the target: one it cannot parse would be a 500 and a stack per
  // request; a Host holding a path or a target like `//` would be misread. `//x` is a path here, never another host.
  const target = originForm(request.url ?? "");
  const url = target !== undefined && isUrlHost(request.headers.host ?? "") ? URL.parse(`http://site${target}`) : null;
  return Object.assign(fate(request, target, url, settings), { path: url?.pathname ?? "" });
}

function fate(request: IncomingMessage, target: string | undefined, url: URL | null, settings: EdgeSettings): Fate {
  const { method = "" } = request;
  if (!ANSWERED_METHODS.split(", ").includes(method)) return refuse(405, refusals.notAllowed, ANSWERED_METHODS);
  if (target === undefined || !url) return refuse(400, refusals.invalid);
  const routeId = url.searchParams.get("_data");
  if (settings.earlyAnswers.get(url.pathname)?.methods.includes(method) && routeId === null)
    return { ...handOn(request, target, routeId, false), early: true };
  const signup = method === "POST";
  if (signup && !(url.pathname === "/" && url.searchParams.has("index")))
    return refuse(405, refusals.notAllowed, "GET, HEAD");
  // Remix's own check answers an empty 500 (a 5xx at anyone's will) to any Origin but Host's, `null` and the public
  // address behind a proxy that rewrites Host included: a post from another site is refused here, Remix not asked.
  if (signup && !fromThisSite(request.headers, settings.publicOrigin)) return refuse(403, refusals.otherSite);
  // One spelling per path: `//` would render the page with its form posting to `//?index`.
  if (url.pathname.includes("//"))
    return { kind: "redirect", location: url.pathname.replace(/\/{2,}/g, "/") + url.search };
  // `/%5C` decodes to a backslash, on which React Router's `new URL()` throws: a 500 at anyone's will.
  if (/%5c/i.test(url.pathname)) return refuse(400, refusals.invalid);
  // Only the page's own script asks for data (posts reach here only at `/`); Remix answers any other in English JSON.
  if (routeId !== null && routeId !== (url.pathname === "/" ? "routes/_index" : "routes/$"))
    return refuse(400, refusals.invalid);
  return handOn(request, target, routeId, signup);
}

function refuse(status: 400 | 403 | 405, text: string, allow?: string): Fate {
  return { kind: "refuse", status, text, allow };
}

function handOn(request: IncomingMessage, target: string, routeId: string | null, signup: boolean): HandOn {
  const headers: IncomingHttpHeaders = { ...request.headers, [PEER_ADDRESS_HEADER]: request.socket.remoteAddress };
  // Remix takes `_data` out of the request a route's action reads: it is told here, whatever a client sent.
  headers[DATA_REQUEST_HEADER] = routeId ?? undefined;
  // Remix's adapter takes the port from it, and anyone can send it (`evil:99999` would make every route answer 500).
  delete headers["x-forwarded-host"];
  if (signup) delete headers.origin;
  return { kind: "remix", target: withDecodablePath(target), headers, signup };
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
 * Whether a post's Origin is this site: the Host it reached (as the Origin's scheme writes it: a proxy may keep capitals
 * or name the default port), or PUBLIC_URL behind a proxy that rewrites Host. No Origin, or `null`, names no other
 * site: such a post still needs the page's signed fields, which another site cannot read.
 */
function fromThisSite({ origin, host }: IncomingHttpHeaders, publicOrigin: string | undefined): boolean {
  if (!origin || origin === "null") return true;
  const from = URL.parse(origin);
  return origin === publicOrigin || (from !== null && from.host === URL.parse(`${from.protocol}//${host}`)?.host);
}
