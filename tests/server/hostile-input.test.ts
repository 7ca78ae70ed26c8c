import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../harness/app-server";
import { visitorFields } from "../harness/signup-client";
import { StandIn } from "../harness/stand-in";
import { SUITE_SECRET } from "./suite";

/**
 * Garbage, floods and tricks sent over a real socket to the built server, as
 * a bot would. Every case must end in a 4xx or the documented "success that is
 * not relayed"; nothing may reach the webhook and the server must stay up.
 * Siteverify rejects every token here, so even a well-formed post relays nothing.
 */

const standIn = new StandIn();
let app: RunningApp;
/** The bot-trap fields of a visitor who took a person's time over the form. */
const botTrap = visitorFields(SUITE_SECRET);

beforeAll(async () => {
  await standIn.start();
  standIn.siteverify = { success: false };
  app = await startApp({
    WEBHOOK_URL: standIn.webhookUrl,
    HCAPTCHA_SECRET: "0xsecret",
    HCAPTCHA_VERIFY_URL: standIn.siteverifyUrl,
    SIGNUP_SECRET: SUITE_SECRET,
    TRUST_PROXY: "1",
  });
});

afterAll(async () => {
  await app?.stop();
  await standIn.stop();
});

type RawResponse = { status: number; text: string };

/**
 * Sends bytes exactly as given and reads the answer until the server closes, or until its whole body has arrived (the
 * length it announced, or the last chunk): the server may still read what the request has left, for its lingering
 * close.
 */
function sendRaw(bytes: Buffer): Promise<RawResponse> {
  const { port } = new URL(app.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    const chunks: Buffer[] = [];
    const answered = () => {
      const text = Buffer.concat(chunks).toString("latin1");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    };
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("latin1");
      const head = text.indexOf("\r\n\r\n");
      const length = /^content-length: *(\d+)\r$/im.exec(text.slice(0, head))?.[1];
      const whole = length === undefined ? text.endsWith("\r\n0\r\n\r\n") : text.length >= head + 4 + Number(length);
      if (head !== -1 && whole) socket.destroy();
    });
    socket.on("error", (error) => (chunks.length ? undefined : reject(error)));
    socket.on("close", answered);
    // Write without half-closing: a server may drop a request whose client has already hung up.
    socket.write(bytes);
  });
}

type Headers = Record<string, string | null>;

let senders = 0;

/** Each case comes from an address of its own: one case's siteverify calls never count against another's rate. */
function request(method: string, path: string, body: Buffer | string, headers: Headers = {}): Buffer {
  const payload = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const merged: Headers = {
    Host: "127.0.0.1",
    Connection: "close",
    "Content-Type": "application/x-www-form-urlencoded",
    "Content-Length": String(payload.length),
    "X-Forwarded-For": `198.51.100.${++senders}`,
    ...headers,
  };
  const head = Object.entries(merged)
    .filter(([, value]) => value !== null)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\r\n");
  return Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\n${head}\r\n\r\n`, "latin1"), payload]);
}

const ACTION = "/?index";
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
/** A form as the page sends it, bot-trap fields included, plus the given fields. */
const withBotTrap = (fields: Record<string, string>) => form({ ...botTrap, ...fields });
const post = (body: Buffer | string, headers?: Headers, path = ACTION) => request("POST", path, body, headers);

function chunked(totalBytes: number): Buffer {
  const chunk = Buffer.alloc(4096, "a");
  const parts: Buffer[] = [Buffer.from("email=")];
  for (let sent = 0; sent < totalBytes; sent += chunk.length) parts.push(chunk);
  const body = Buffer.concat(parts);
  const head = `POST ${ACTION} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`;
  return Buffer.concat([
    Buffer.from(head),
    Buffer.from(`${body.length.toString(16)}\r\n`),
    body,
    Buffer.from("\r\n0\r\n\r\n"),
  ]);
}

const validEmail = "ana@exemplo.com.br";
const token = "P1_hostile-token";

/** [name, raw request, expected status]; 200 is the bot trap's success that is not relayed. */
const CASES: Array<[string, () => Buffer, number]> = [
  // size
  ["a body of 17 KB", () => post(withBotTrap({ email: "a".repeat(17 * 1024) })), 413],
  ["a Content-Length over the limit on a small body", () => post("email=x", { "Content-Length": "999999" }), 413],
  ["a 100 KB chunked body with no Content-Length", () => chunked(100 * 1024), 413],
  // encodings
  ["a truncated percent-escape", () => post(`${withBotTrap({})}&email=%E0%A4%A`), 400],
  ["a non-hex percent-escape", () => post(`${withBotTrap({})}&email=ana%ZZ@exemplo.com`), 400],
  ["an overlong UTF-8 escape", () => post(`${withBotTrap({})}&email=%C0%AF@exemplo.com`), 400],
  [
    "raw bytes that are not UTF-8",
    () => post(Buffer.concat([Buffer.from(`${withBotTrap({})}&email=`), Buffer.from([0xff, 0xfe, 0x41])])),
    400,
  ],
  ["a lone surrogate escape", () => post(`${withBotTrap({})}&email=%ED%A0%80@exemplo.com`), 400],
  // content types
  [
    "a multipart body",
    () =>
      post(`--x\r\nContent-Disposition: form-data; name="email"\r\n\r\n${validEmail}\r\n--x--\r\n`, {
        "Content-Type": "multipart/form-data; boundary=x",
      }),
    415,
  ],
  [
    "a JSON body",
    () => post(JSON.stringify({ email: validEmail, hcaptchaToken: token }), { "Content-Type": "application/json" }),
    415,
  ],
  ["text/plain", () => post(`email=${validEmail}`, { "Content-Type": "text/plain" }), 415],
  ["no Content-Type at all", () => post(`email=${validEmail}`, { "Content-Type": null }), 415],
  [
    "a Latin-1 charset",
    () =>
      post(withBotTrap({ email: validEmail }), {
        "Content-Type": "application/x-www-form-urlencoded; charset=iso-8859-1",
      }),
    415,
  ],
  ["XML", () => post(`<email>${validEmail}</email>`, { "Content-Type": "application/xml" }), 415],
  // hostile e-mails: what the body's decoding hands the e-mail rule (each address the rule refuses: unit/email)
  [
    "an encoded header injection",
    () => post(`${withBotTrap({ hcaptchaToken: token })}&email=ana%0d%0aSet-Cookie:%20x=1@exemplo.com`),
    400,
  ],
  ["a NUL byte", () => post(withBotTrap({ email: `ana\u0000@exemplo.com`, hcaptchaToken: token })), 400],
  // fields
  [
    "the e-mail field twice",
    () => post(`${withBotTrap({ hcaptchaToken: token })}&email=${validEmail}&email=outra@exemplo.com`),
    400,
  ],
  ["the token field twice", () => post(`${withBotTrap({ email: validEmail })}&hcaptchaToken=a&hcaptchaToken=b`), 400],
  ["no e-mail field", () => post(withBotTrap({ hcaptchaToken: token })), 400],
  ["an empty body", () => post(""), 200],
  ["a thousand unknown fields", () => post(`${withBotTrap({ email: "x" })}&${"z=1&".repeat(1000)}`), 400],
  ["a token of 9,000 characters", () => post(withBotTrap({ email: validEmail, hcaptchaToken: "t".repeat(9000) })), 400],
  ["a token with CR/LF", () => post(withBotTrap({ email: validEmail, hcaptchaToken: "abc\r\nX-Injected: 1" })), 400],
  [
    "a forged fallback token",
    () => post(withBotTrap({ email: validEmail, challengeToken: "a.b.c", challengeAnswer: "7" })),
    400,
  ],
  [
    "a fallback token expiring in a year",
    () =>
      post(withBotTrap({ email: validEmail, challengeToken: `id.${Date.now() + 3.15e10}.mac`, challengeAnswer: "7" })),
    400,
  ],
  [
    "a well-formed post whose token siteverify rejects",
    () => post(withBotTrap({ email: validEmail, hcaptchaToken: token })),
    400,
  ],
  // the bot trap: looks like success, relays nothing
  [
    "the hidden field filled in",
    () => post(form({ ...botTrap, name__confirm: "Robô", email: validEmail, hcaptchaToken: token })),
    200,
  ],
  ["the bot-trap fields left out", () => post(form({ email: validEmail, hcaptchaToken: token })), 200],
  // a timestamp nobody can read is a page from before a secret change: told to send again, nothing relayed
  [
    "a garbage bot-trap timestamp",
    () => post(form({ ...botTrap, from__confirm: "%%%not-a-time", email: validEmail, hcaptchaToken: token })),
    400,
  ],
  // what Node's parser refuses; the edge's own decisions: tests/unit/guards.test.ts
  [
    "a header with a NUL byte",
    () => Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\nConnection: close\r\n\r\n`, "latin1"),
    400,
  ],
  [
    "a spoofed X-Forwarded-For",
    () => post(withBotTrap({ email: "ana@", hcaptchaToken: token }), { "X-Forwarded-For": "1.1.1.1, not-an-ip" }),
    400,
  ],
];

describe("hostile input against the built server", () => {
  const cases = CASES.map(([name, build, expected]) => [name, expected, build] as const);
  it.each(cases)("%s → %i, relaying nothing, without a 5xx or an unexpected error", async (_, expected, build) => {
    const response = await sendRaw(build());
    expect(response.status, app.output().slice(-3000)).toBe(expected);
    expect(standIn.received.webhook).toHaveLength(0);
    // remix-serve logs "METHOD path STATUS ..." for every request.
    expect(app.output()).not.toMatch(/^[A-Z]+ \S+ 5\d\d /m);
    expect(app.output()).not.toContain('"event":"unexpected-error"');
  });

  it("an upload too large is answered 413 and read on, never cut by a reset that overtakes the answer", async () => {
    const upload = post(withBotTrap({ email: "a".repeat(5 * 1024 * 1024) }));
    const statuses = new Set<number>();
    for (let attempt = 0; attempt < 100; attempt++) statuses.add((await sendRaw(upload)).status);
    expect([...statuses]).toEqual([413]);
  });
});
