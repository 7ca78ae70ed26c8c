import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { installServerPlumbing } from "~/server/guards.server";

/**
 * The deadlines remix-serve's server gets from the guards, read off a server made as remix-serve makes it (express's
 * `app.listen`: `http.createServer(app)`). Node itself keeps them: a request still arriving past its deadline is
 * answered 408, an idle connection closed past its keep-alive. That each reaches the running server is shown there:
 * the Keep-Alive it writes into every answer (tests/server/faults.test.ts).
 */

const unguarded = http.createServer;
installServerPlumbing();
const server = http.createServer(() => undefined);
afterAll(async () => {
  // The unit lane shares its processes between files: their own servers (the stand-in) are plain ones.
  http.createServer = unguarded;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the server remix-serve creates", () => {
  it("answers 408 to a request not whole within 15 s (the limits table), not Node's 5 minutes", () => {
    expect(server.requestTimeout).toBe(15_000);
  });

  it("keeps an idle connection 620 s (the limits table), longer than any balancer keeps its own, not Node's 5 s", () => {
    expect(server.keepAliveTimeout).toBe(620_000);
  });
});
