import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { generate } from "selfsigned";
import { FAKE_HCAPTCHA_API } from "./fake-hcaptcha-api";

const HCAPTCHA_SCRIPT_HOST = "js.hcaptcha.com";

export type HcaptchaHost = {
  /** `127.0.0.1:<port>`: the browser's HTTPS proxy. */
  proxy: string;
  stop: () => Promise<void>;
};

/**
 * js.hcaptcha.com, on loopback, for browsers that Playwright does not drive (no `page.route` there): a proxy that the
 * browser is told to use for HTTPS (Firefox's prefs, MiniBrowser's `--proxy`). A CONNECT to js.hcaptcha.com:443 is
 * answered by a TLS server holding a self-signed certificate for that name (the browsers accept it with
 * `acceptInsecureCerts`), which serves the fake api.js the Chromium suite serves; every other host is refused, as on a
 * closed network. The page's own origin, on loopback, is not proxied.
 */
export async function startHcaptchaHost(): Promise<HcaptchaHost> {
  const pems = await generate([{ name: "commonName", value: HCAPTCHA_SCRIPT_HOST }], {
    keyType: "ec",
    extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: HCAPTCHA_SCRIPT_HOST }] }],
  });
  const tls = createHttpsServer({ key: pems.private, cert: pems.cert }, (request, response) => {
    if (!request.url?.startsWith("/1/api.js")) return void response.writeHead(404).end();
    response.writeHead(200, {
      "content-type": "application/javascript",
      "access-control-allow-origin": "*",
      "cache-control": "no-store",
    });
    response.end(FAKE_HCAPTCHA_API);
  });
  const proxy: Server = createHttpServer((request, response) => void response.writeHead(502).end());
  proxy.on("connect", (request, socket: Socket) => {
    if (request.url !== `${HCAPTCHA_SCRIPT_HOST}:443`) {
      socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      return;
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    tls.emit("connection", socket);
  });
  // Tunnelled connections leave the HTTP server's own bookkeeping: they are ended here when the host stops.
  const sockets = new Set<Socket>();
  proxy.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    proxy: `127.0.0.1:${port}`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
