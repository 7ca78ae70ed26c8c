import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { guardedServer } from "~/server/installer.server";

/** What Node's parser refuses never reaches the edge's decision: the installer answers it, in Portuguese. */
const answered: string[] = [];
const server = guardedServer(
  { publicOrigin: undefined, earlyAnswers: new Map(), answered: (status, path) => answered.push(`${status} ${path}`) },
  (_request, response) => response.end("ok"),
  { requestTimeout: 200, connectionsCheckingInterval: 50 },
);
let lastRequest: IncomingMessage | undefined;
server.on("request", (request: IncomingMessage) => (lastRequest = request));
beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)));
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** What the server sends back to `bytes` on a fresh connection, until it closes it; `then.send` is sent once what
 * arrived ends with `then.after` (a kept-alive connection's next request, the rest of an upload). */
function exchange(bytes: string, then?: { after: string; send: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1", () => socket.write(bytes));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
      if (then && received.endsWith(then.after)) socket.write(then.send);
    });
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
  });
}

it.each([
  ["a request line that is no HTTP", "HELLO\r\n\r\n", "400 Bad Request", "Requisição inválida."],
  [
    "headers past Node's 16 KB",
    `GET / HTTP/1.1\r\nHost: a\r\nX: ${"a".repeat(17_000)}\r\n\r\n`,
    "431 Request Header Fields Too Large",
    "Endereço ou cabeçalhos grandes demais.",
  ],
  [
    "a request that stops half-way",
    "GET / HTTP/1.1\r\nHost: a\r\n",
    "408 Request Timeout",
    "A requisição demorou demais para chegar. Tente de novo.",
  ],
])(
  "%s: answered with its status and Portuguese text, counted, the connection closed",
  async (_case, bytes, statusLine, text) => {
    answered.length = 0;
    const reply = await exchange(bytes);
    expect(reply.split("\r\n")[0]).toBe(`HTTP/1.1 ${statusLine}`);
    expect(reply).toContain("Content-Type: text/plain; charset=utf-8");
    expect(reply.endsWith(`\r\n\r\n${text}`)).toBe(true);
    expect(answered).toEqual([`${statusLine.slice(0, 3)} `]);
  },
);

it("a second request on a connection whose first was answered still gets its refusal, each counted", async () => {
  answered.length = 0;
  const reply = await exchange("GET http://a/healthz?x HTTP/1.1\r\nHost: a\r\n\r\n", {
    after: "\r\n\r\nok",
    send: "HELLO\r\n\r\n",
  });
  expect(answered).toEqual(["200 /healthz", "400 "]);
  expect(reply).toMatch(
    /^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nok[\s\S]*HTTP\/1\.1 400 Bad Request[\s\S]*Requisição inválida\.$/,
  );
});

it("reads on past an answer sent before the upload ended, so no reset can overtake the answer (a 413, a refusal)", async () => {
  // The lingering close's own deadline held: however slowly the upload arrives here, it is read to its end.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const rest = "a".repeat(64 * 1024);
  const upload = `POST /wp-login.php HTTP/1.1\r\nHost: a\r\nContent-Length: ${rest.length}\r\n\r\n`;
  // Closed with the rest of the upload unread, the kernel would answer it with a reset.
  const reply = await exchange(upload, { after: "permitido.", send: rest }).finally(() => vi.useRealTimers());
  expect([reply.slice(0, 12), lastRequest?.complete]).toEqual(["HTTP/1.1 405", true]);
});
