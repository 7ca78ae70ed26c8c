import { describe, expect, it } from "vitest";
import { publicErrorText } from "~/delivery/webhook-error-text.server";

const WEBHOOK = "https://automacao.exemplo.com.br/webhook/5f1c-segredo-9a2b?token=abc123xyz";

describe("the webhook's error text shown to visitors", () => {
  it.each([
    [
      "n8n's inactive workflow, path without a slash",
      '{"code":404,"message":"The requested webhook \\"POST webhook/5f1c-segredo-9a2b\\" is not registered."}',
      'The requested […] "POST […]" is not registered.',
    ],
    ["the path with a leading slash", "no route /webhook/5f1c-segredo-9a2b", "no route […]"],
    ["the path URL-encoded", "no route %2Fwebhook%2F5f1c-segredo-9a2b", "no route […]"],
    ["the path escaped as JSON does (\\/)", '{"error":"no route \\/webhook\\/5f1c-segredo-9a2b"}', "no route […]"],
    ["the query's name and value", "bad token abc123xyz", "bad […]"],
    ["the host", "automacao.exemplo.com.br refused", "[…] refused"],
    ["any other URL", "see https://status.exemplo.org/x?y=1 for details", "see […] for details"],
    ["Make's accepted-but-failed", "Scenario failed.", "Scenario failed."],
    [
      "an nginx 502 page",
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>",
      "502 Bad Gateway",
    ],
    ["markup without a title", "<div><b>erro</b> <script>alert(1)</script>interno</div>", "erro interno"],
    ["escaped markup in plain text stays text (React escapes it)", "&lt;b&gt;x", "&lt;b&gt;x"],
    ["control characters and line breaks", "linha 1\r\nlinha\u0000 2", "linha 1 linha 2"],
    [
      "the path in JSON unicode escapes, in a body cut before it parses",
      '{"message":"no route \\u002fwebhook\\u002f5f1c\\u002dsegredo\\u002d9a2b and more',
      '{"message":"no route […] and more',
    ],
    ["the path in numeric HTML references", "<title>no route 5f1c&#x2d;segredo&#45;9a2b</title>", "no route […]"],
    ["each character percent-encoded", "no route %35%66%31%63%2d%73%65%67%72%65%64%6f%2d%39%61%32%62", "no route […]"],
  ])("%s", (_case, body, shown) => {
    expect(publicErrorText(body, WEBHOOK)).toBe(shown);
  });

  it("hides the port as a number of its own, not the digits of other numbers", () => {
    expect(publicErrorText("port 5678 refused after 15678 ms", "http://n8n.interno:5678/webhook/abcdef")).toBe(
      "port […] refused after 15678 ms",
    );
  });

  it("keeps a short path part only where it stands as a word", () => {
    expect(publicErrorText("hook v1 is gone; avoid v12", "https://x.exemplo.com/v1/abcdef")).toBe(
      "hook […] is gone; avoid v12",
    );
  });

  it("hides the whole query string: a bare key, a parameter's name and its value", () => {
    expect(publicErrorText("unknown key SECRETKEY123", "https://hooks.exemplo.com/hook?SECRETKEY123")).toBe(
      "unknown key […]",
    );
    expect(publicErrorText("no handler for ?SECRETKEY123", "https://hooks.exemplo.com/hook?SECRETKEY123")).toBe(
      "no handler for […]",
    );
    expect(publicErrorText("missing s3cretname, got x9", "https://hooks.exemplo.com/h?s3cretname=x9")).toBe(
      "missing […], got […]",
    );
  });

  it("hides a path segment as a whole word, not inside other words", () => {
    expect(publicErrorText("Webhook not found", "https://hooks.exemplo.com/hook?SECRETKEY123")).toBe(
      "Webhook not found",
    );
    expect(publicErrorText("no hook here", "https://hooks.exemplo.com/hook")).toBe("no […] here");
  });

  it("hides the credentials of a Basic-auth webhook", () => {
    expect(
      publicErrorText("bad login n8nuser / Pa55-w0rd", "https://n8nuser:Pa55-w0rd@n8n.exemplo.com/webhook/x"),
    ).toBe("bad login […]");
  });

  it("hides the credentials as the Authorization header spells them", () => {
    const basic = Buffer.from("n8nuser:Pa55-w0rd").toString("base64");
    expect(
      publicErrorText(`Invalid header Authorization: Basic ${basic}`, "https://n8nuser:Pa55-w0rd@n8n.exemplo.com/w/x"),
    ).toBe("Invalid header Authorization: Basic […]");
  });

  it.each([
    ["glued to other characters", "no route 5f1c-segredo-9a2b2", "no route […]2"],
    ["with soft hyphens and zero-width spaces inside", "no route 5f1c\u00ad-segredo\u200b-9a2b", "no route […]"],
    ["with its separators changed", "no route 5f1c segredo_9a2b", "no route […]"],
    ["in capitals", "NO ROUTE 5F1C-SEGREDO-9A2B", "NO ROUTE […]"],
    ["split by an HTML comment", "<html><title>Not found: 5f1c-segre<!-- -->do-9a2b</title></html>", "Not found: […]"],
    ["split by inline tags", "<p>no route <b>5f1c-seg</b>redo-9a2b</p>", "no route […]"],
    ["percent-encoded twice", "no route 5%25661c-segredo-9a2b", "no route […]"],
    [
      "percent-encoded in a run that ends in a broken escape",
      "no route %35%66%31%63%2d%73%65%67%72%65%64%6f%2d%39%61%32%62%FF",
      "no route […]%FF",
    ],
  ])("hides a long path segment %s", (_case, body, shown) => {
    expect(publicErrorText(body, WEBHOOK)).toBe(shown);
  });

  it("shows nothing of a text where a long part of the URL could not be hidden (the visitor reads the status)", () => {
    expect(publicErrorText("bad token abc123&period;xyz", WEBHOOK)).toBe("");
  });

  it("hides an international host in its Unicode spelling, and the credentials in base64url", () => {
    expect(publicErrorText("automação.exemplo.com.br refused", "https://automação.exemplo.com.br/h/abcdef")).toBe(
      "[…] refused",
    );
    const base64url = Buffer.from("usuario:~~~>>>").toString("base64url");
    expect(base64url).toMatch(/[-_]/);
    expect(publicErrorText(`auth ${base64url} refused`, "https://usuario:~~~%3E%3E%3E@h.exemplo.com/x")).toBe(
      "auth […] refused",
    );
  });

  it("cuts long text to 200 characters and drops a word the read may have split", () => {
    const shown = publicErrorText(`${"palavra ".repeat(100)}/webhook/5f1c-seg`, WEBHOOK, true);
    expect(shown).toHaveLength(200);
    expect(shown.endsWith("…")).toBe(true);
    expect(publicErrorText("erro em /webhook/5f1c-se", WEBHOOK, true)).toBe("erro em");
  });
});
