import { describe, expect, it } from "vitest";
import { publicError } from "~/delivery/webhook-error-text.server";

const WEBHOOK = "https://automacao.exemplo.com.br/webhook/5f1c-segredo-9a2b?token=abc123xyz";
/** n8n's shape: a UUID path and a query value whose base64 holds no digit (so only its decoding can catch it). */
const N8N_UUID = "https://n8n.exemplo.com.br/webhook/3f2a9c1e-7b4d-4e8a-9f10-2c3d4e5f6a7b?token=paneriquce";
const N8N_LOCAL = "http://127.0.0.1:5678/webhook/3f2a9c1e-7b4d-4e8a-9f10-2c3d4e5f6a7b";
const N8N_NAMED = "https://n8n.exemplo.com.br/webhook/prevly-signup";
const ZAPIER = "https://hooks.zapier.com/hooks/catch/1234567/3ab4cde/";
const MAKE = "https://hook.eu1.make.com/k7d2xq9vbn4mw8rt3yh6ps1ac5fj0lue";

const shown = (text: string, url = WEBHOOK, cut = false) =>
  publicError({ status: 404, statusText: "Not Found", text, cut }, url).text;

describe("the webhook's error message shown to visitors", () => {
  /** [case, the webhook's URL, its body, the message shown: the body itself unless told]. */
  it.each<[string, string, string, string?]>([
    ["Make's accepted-but-failed", MAKE, "Scenario failed."],
    [
      "n8n's failed workflow, naming the webhook",
      N8N_NAMED,
      '{"code":0,"message":"Workflow Webhook Error: Workflow could not be started!"}',
      "Workflow Webhook Error: Workflow could not be started!",
    ],
    [
      "n8n's test URL, in its own words",
      "https://n8n.exemplo.com.br/webhook-test/prevly-signup",
      "The webhook-test endpoint is not listening",
    ],
    ["Zapier's shared path words", ZAPIER, "Hooks are paused: catch them later"],
    [
      "an nginx 502 page's title",
      WEBHOOK,
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>",
      "502 Bad Gateway",
    ],
    ["an HTML title's entities, written out", WEBHOOK, "<title>Erro &amp; falha</title>", "Erro & falha"],
    ["escaped markup in plain text, as text (React escapes it)", WEBHOOK, "&lt;b&gt;x"],
    ["control characters and line breaks, as spaces", WEBHOOK, "linha 1\r\nlinha\u0000 2", "linha 1 linha 2"],
    ["a number under 6 digits and a short run of letters and digits", WEBHOOK, "took 15678 ms (utf8)"],
    ["a word holding a short path segment", "https://hooks.exemplo.com/hook?SECRETKEY123", "Webhook not found"],
  ])("shows a message made of ordinary words: %s", (_case, url, body, message = body) => {
    expect(shown(body, url)).toBe(message);
  });

  it.each([
    ["the first 18 characters of an n8n path's UUID", N8N_UUID, "no route 3f2a9c1e-7b4d-4e8a"],
    ["the UUID's first groups, split apart", N8N_UUID, "no route 3f2a 9c1e 7b4d 4e8a"],
    ["the query value in base64", N8N_UUID, `refused: ${Buffer.from("paneriquce").toString("base64")}`],
    ["the query value in full width", N8N_UUID, "refused: ｐａｎｅｒｉｑｕｃｅ"],
    ["the host as an IPv4-mapped IPv6 address", N8N_LOCAL, "connect ::ffff:7f00:1 refused"],
    ["the host in hex", N8N_LOCAL, "connect 0x7f.0.0.1 refused"],
    ["another address and port", WEBHOOK, "upstream 10.0.0.5:8080 refused"],
    ["an address that ends a sentence", WEBHOOK, "refused by 10.0.0.5."],
    [
      "n8n's 404 for a workflow switched off",
      N8N_NAMED,
      JSON.stringify({
        code: 404,
        message: 'The requested webhook "POST prevly-signup" is not registered.',
        hint: "The workflow must be active for a production URL to run successfully.",
        stacktrace: "Error: The requested webhook is not registered.\n    at TestWebhooks.getWebhookMethods",
      }),
    ],
    ["a number of 6 digits or more", WEBHOOK, "job 1234567 failed"],
    ["a long run of letters and digits", WEBHOOK, "request a8f3k2m9q1 failed"],
    ["the path escaped as JSON does (\\/)", WEBHOOK, '{"error":"no route \\/webhook\\/5f1c-segredo-9a2b"}'],
    ["the query's name and value", WEBHOOK, "bad token abc123xyz"],
    ["the host", WEBHOOK, "automacao.exemplo.com.br refused"],
    ["any other URL", WEBHOOK, "see https://status.example.org/incidents for details"],
    [
      "the path's characters all in JSON unicode escapes, in a body cut before it parses",
      WEBHOOK,
      `{"message":"no route ${[..."5f1c-segredo-9a2b"].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join("")}`,
    ],
    ["the path in numeric HTML references", WEBHOOK, "<title>no route 5f1c&#x2d;segredo&#45;9a2b</title>"],
    [
      "the path in numeric HTML references, in plain text",
      WEBHOOK,
      `no route ${[..."5f1c-segredo-9a2b"].map((c) => `&#${c.charCodeAt(0)};`).join("")}`,
    ],
    ["each character percent-encoded", WEBHOOK, "no route %35%66%31%63%2d%73%65%67%72%65%64%6f%2d%39%61%32%62"],
    ["the port", "http://n8n.interno:5678/webhook/abcdef", "port 5678 refused after 15678 ms"],
    ["a short path segment as a word", "https://x.exemplo.com/v1/abcdef", "hook v1 is gone; avoid v12"],
    ["a bare key in the query", "https://hooks.exemplo.com/hook?SECRETKEY123", "unknown key SECRETKEY123"],
    ["a short query name and value", "https://hooks.exemplo.com/h?s3cretname=x9", "missing s3cretname, got x9"],
    ["a short query value with a zero-width space inside", "https://hooks.exemplo.com/h?s3cretname=x9", "got x\u200b9"],
    ["the credentials", "https://n8nuser:Pa55-w0rd@n8n.exemplo.com/webhook/x", "bad login n8nuser / Pa55-w0rd"],
    [
      "the credentials in base64url",
      "https://usuario:~~~%3E%3E%3E@h.exemplo.com/x",
      `auth ${Buffer.from("usuario:~~~>>>").toString("base64url")} refused`,
    ],
    ["an international host in its Unicode spelling", "https://例え.テスト/h/abcdef", "例え.テスト refused"],
    ["a long path segment with soft hyphens and zero-width spaces", WEBHOOK, "no route 5f1c\u00ad-segredo\u200b-9a2b"],
    ["a long path segment in capitals", WEBHOOK, "NO ROUTE 5F1C-SEGREDO-9A2B"],
    [
      "a long path segment split by an HTML comment",
      WEBHOOK,
      "<html><title>Not found: 5f1c-segre<!-- -->do-9a2b</title></html>",
    ],
    [
      "a long path segment percent-encoded twice",
      WEBHOOK,
      `no route ${[..."5f1c-segredo-9a2b"].map((c) => `%25${c.charCodeAt(0).toString(16)}`).join("")}`,
    ],
    [
      "a long path segment percent-encoded in a run that ends in a broken escape",
      WEBHOOK,
      "no route %35%66%31%63%2d%73%65%67%72%65%64%6f%2d%39%61%32%62%FF",
    ],
  ])("shows the status alone for %s", (_case, url, body) => {
    expect(shown(body, url)).toBe("");
  });

  it("reads an HTML page by its title alone", () => {
    expect(shown("<div><b>erro</b> <script>alert(1)</script>interno</div>")).toBe("");
  });

  it("cuts long text to 200 characters and drops a word the read may have split", () => {
    const cut = shown(`${"palavra ".repeat(100)}/webhook/5f1c-seg`, WEBHOOK, true);
    expect(cut).toHaveLength(200);
    expect(cut.endsWith("…")).toBe(true);
    expect(shown("erro em /webhook/5f1c-se", WEBHOOK, true)).toBe("erro em");
  });
});

describe("the webhook's status shown to visitors", () => {
  it("is the webhook's own, or the standard one for its code when the webhook's could be part of the URL or is empty", () => {
    const status = (statusText: string) => publicError({ status: 410, statusText, text: "", cut: false }, WEBHOOK);
    expect(status("Going away").statusText).toBe("Going away");
    expect(status("Gone: 5f1c-segredo-9a2b").statusText).toBe("Gone");
    expect(status("").statusText).toBe("Gone");
  });
});
