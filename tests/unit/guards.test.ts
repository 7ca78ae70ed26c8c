import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { DATA_REQUEST_HEADER, decide, type Decision } from "~/server/guards.server";
import { guardedServer } from "~/server/installer.server";
import { PEER_ADDRESS_HEADER } from "~/server/client-address.server";

/** Every request's fate before Remix (decision 005), decided from its request line, headers and peer alone. */

const settings = {
  publicOrigin: "https://prevly.example",
  earlyAnswers: new Map([
    ["/", { methods: ["GET", "HEAD"] }],
    ["/metrics", { methods: ["GET"] }],
    ["/__insight/reached", { methods: ["POST"] }],
  ]),
};
type Headers = Record<string, string>;
const socket = { remoteAddress: "203.0.113.9" };
const ask = (method: string, url: string, headers: Headers = {}) =>
  decide({ method, url, headers: { host: "127.0.0.1:3000", ...headers }, socket } as IncomingMessage, settings);
/** The decision's kind with what the visitor sees of it: a status, a Location, the path answered, the target. */
function outcome(decision: Decision): string {
  if (decision.kind === "refuse")
    return `${decision.status} ${decision.text}${decision.allow ? ` (${decision.allow})` : ""}`;
  if (decision.kind === "redirect") return `301 ${decision.location}`;
  return decision.early ? `early ${decision.path}` : `remix ${decision.target}`;
}

const INVALID = "400 Requisição inválida.";
const OTHER_SITE = "403 Envio recusado: o formulário veio de outro endereço. Abra a página e envie de novo.";
const ACTION = "/?index";

describe("the edge's decision", () => {
  it.each<[string, string, Headers, string]>([
    // methods
    ["TRACE", "/", {}, "405 Método não permitido. (GET, HEAD, POST)"],
    ["get", "/", {}, "405 Método não permitido. (GET, HEAD, POST)"],
    ["POST", "/", {}, "405 Método não permitido. (GET, HEAD)"],
    ["POST", "/wp-login.php", {}, "405 Método não permitido. (GET, HEAD)"],
    ["POST", "//?index", {}, "405 Método não permitido. (GET, HEAD)"],
    ["POST", "/?_data=root", {}, "405 Método não permitido. (GET, HEAD)"],
    // the page, answered early however spelled
    ["GET", "/", {}, "early /"],
    ["HEAD", "/", {}, "early /"],
    ["GET", `/?utm_source=${"x".repeat(8 * 1024)}`, {}, "early /"],
    ["GET", "http://127.0.0.1/?fbclid=1", {}, "early /"],
    ["GET", "/", { "accept-encoding": "br;q=0, gzip;q=0.5, zstd, *;q=0.1" }, "early /"],
    ["GET", "/", { "if-none-match": 'W/"a", W/"b"', range: "bytes=0-10" }, "early /"],
    ["GET", "/?_data=routes%2F_index", {}, "remix /?_data=routes%2F_index"],
    ["GET", "/?_d%61ta=routes%2F_index", {}, "remix /?_d%61ta=routes%2F_index"],
    ["GET", "/?%5F%64ata=routes%2F_index", {}, "remix /?%5F%64ata=routes%2F_index"],
    ["GET", "/?_data=root", {}, INVALID],
    ["GET", "/?_data=routes%2Fnope", {}, INVALID],
    ["GET", "/?_data=routes%2F%24", {}, INVALID],
    ["HEAD", "/planos%5c/x", {}, INVALID],
    ["GET", "/planos?_data=routes%2F%24", {}, "remix /planos?_data=routes%2F%24"],
    ["POST", "/?index&_data=root", {}, INVALID],
    ["POST", "/?index&_data=routes%2F_index", {}, "remix /?index&_data=routes%2F_index"],
    ["GET", "/metrics", {}, "early /metrics"],
    ["POST", "/__insight/reached", {}, "early /__insight/reached"],
    // targets
    ["GET", "*", {}, INVALID],
    ["GET", "mailto:ana@exemplo.com", {}, INVALID],
    ["GET", "http://127.0.0.1/healthz", {}, "remix /healthz"],
    ["GET", "http://evil.com/%", {}, "remix /%25"],
    ["GET", "/%ZZ/%E0?a=%", {}, "remix /%25ZZ/%25E0?a=%"],
    ["GET", "/%2F", {}, "remix /%2F"],
    ["GET", "///?utm_source=x", {}, "301 /?utm_source=x"],
    ["GET", "//evil.com/x", {}, "301 /evil.com/x"],
    ["GET", "/\\", {}, "301 /"],
    // Host spellings
    ...["<script>", "a^b", "evil:99999", "999.999.999.999", "1.2.3.08", "[::::]", "[1.2.3.4]", "a/b", "a\\b", ""].map(
      (host): [string, string, Headers, string] => ["GET", "/", { host }, INVALID],
    ),
    ["POST", ACTION, { host: "evil:65536" }, INVALID],
    ["GET", "/", { host: "[::1]:3000" }, "early /"],
    ["GET", "/", { host: "Prevly.Example" }, "early /"],
    // a post's Origin
    ["POST", ACTION, { origin: "http://127.0.0.1:1" }, OTHER_SITE],
    ["POST", `${ACTION}&_data=routes%2F_index`, { origin: "http://127.0.0.1:1" }, OTHER_SITE],
    ["POST", ACTION, { origin: "https://prevly.example.evil.com" }, OTHER_SITE],
    ["POST", ACTION, { origin: "http://prevly.example", host: "prevly.example:443" }, OTHER_SITE],
    ["POST", ACTION, { origin: "http://127.0.0.1:3000" }, `remix ${ACTION}`],
    ["POST", ACTION, { origin: "null" }, `remix ${ACTION}`],
    ["POST", ACTION, {}, `remix ${ACTION}`],
    ["POST", ACTION, { origin: "https://prevly.example" }, `remix ${ACTION}`],
    ["POST", ACTION, { origin: "https://prevly.example", host: "prevly.example:443" }, `remix ${ACTION}`],
    ["POST", ACTION, { origin: "http://prevly.example", host: "Prevly.Example" }, `remix ${ACTION}`],
  ])("%s %s %j → %s", (method, target, headers, expected) => {
    expect(outcome(ask(method, target, headers))).toBe(expected);
  });

  it("hands Remix the peer's address and the data request's route id over whatever a client sent, and no forwarded host or post's Origin", () => {
    const forged = {
      [PEER_ADDRESS_HEADER]: "1.1.1.1",
      [DATA_REQUEST_HEADER]: "routes/_index",
      "x-forwarded-host": "evil:99999",
      origin: "null",
    };
    const post = ask("POST", ACTION, forged);
    const data = ask("GET", "/planos?_data=routes%2F%24", forged);
    const page = ask("GET", "/", forged);
    if (post.kind !== "remix" || data.kind !== "remix" || page.kind !== "remix") throw new Error("not handed on");
    expect(post).toMatchObject({ signup: true, headers: { [PEER_ADDRESS_HEADER]: "203.0.113.9" } });
    expect(post.headers[DATA_REQUEST_HEADER]).toBeUndefined();
    expect(post.headers).not.toHaveProperty("origin");
    expect(post.headers).not.toHaveProperty("x-forwarded-host");
    expect(data.headers[DATA_REQUEST_HEADER]).toBe("routes/$");
    expect(page).toMatchObject({ target: "/", signup: false, headers: { origin: "null" } });
    expect(page.headers[DATA_REQUEST_HEADER]).toBeUndefined();
  });
});

describe("the server remix-serve creates", () => {
  const edge = { ...settings, earlyAnswers: new Map(), answered: () => undefined };

  it("gives a request 15 s to arrive whole and keeps an idle connection 620 s (the limits table), not Node's 5 minutes and 5 s", () => {
    const server = guardedServer(edge, () => undefined);
    expect([server.requestTimeout, server.keepAliveTimeout]).toEqual([15_000, 620_000]);
  });
});
