import { once } from "node:events";
import { request, type IncomingMessage } from "node:http";
import { createServer, Server, type AddressInfo } from "node:net";
import { afterEach, expect, it, vi } from "vitest";
import { guardedServer, type Edge } from "~/server/installer.server";

/**
 * What the server remix-serve creates does with the edge's decision (the decision itself: unit/guards), and with the
 * port it is given: each case in-process, on a loopback port of its own.
 */

const edge: Edge = { publicOrigin: "https://prevly.example", earlyAnswers: new Map(), answered: () => undefined };

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const OTHER_SITE = "Envio recusado: o formulário veio de outro endereço. Abra a página e envie de novo.";
const MISMATCH_LOGGED = '"event":"origin-mismatch","origin":"http://127.0.0.1:1"';

it.each([
  ["a method Remix cannot take", "TRACE", {}, [405, "GET, HEAD, POST", "Método não permitido.", false]],
  ["a form posted from another site", "POST", { origin: "http://127.0.0.1:1" }, [403, undefined, OTHER_SITE, true]],
])("%s is refused before Remix in short pt-BR text, the post's Origin logged", async (_, method, headers, refusal) => {
  const logged = vi.spyOn(console, "log").mockImplementation(() => undefined);
  let handedToRemix = 0;
  const server = guardedServer(edge, () => handedToRemix++).listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const response = await new Promise<IncomingMessage>((resolve, reject) =>
    request(`http://127.0.0.1:${port}/?index`, { method, headers }, resolve).on("error", reject).end(),
  );
  const text = (await response.toArray()).join("");
  server.close();
  const { allow, "content-type": type } = response.headers;
  const mismatchLogged = logged.mock.calls.join("\n").includes(MISMATCH_LOGGED);
  expect([response.statusCode, allow, text, mismatchLogged]).toEqual(refusal);
  expect([type, handedToRemix]).toEqual(["text/plain; charset=utf-8", 0]);
});

it("an empty PORT means unset: port 0 from remix-serve becomes its own default, 3000", () => {
  vi.stubEnv("PORT", "");
  const listen = vi.spyOn(Server.prototype, "listen").mockReturnThis();
  guardedServer(edge, () => undefined).listen(0);
  expect(listen).toHaveBeenCalledWith(3000);
});

it("a port already in use stops start-up with exit code 1 and one line naming it", async () => {
  const taken = createServer().listen(0, "127.0.0.1");
  await once(taken, "listening");
  const { port } = taken.address() as AddressInfo;
  const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
  const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
  guardedServer(edge, () => undefined).listen(port, "127.0.0.1");
  await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(1));
  taken.close();
  expect(printed.mock.calls).toEqual([
    [`Cannot listen on port ${port}: it is already in use. Stop what listens there or set PORT to a free port.`],
  ]);
});
