import type { IncomingMessage, ServerResponse } from "node:http";
import { expect, it } from "vitest";
import { Metrics } from "~/server/metrics.server";

const TOKEN = "metrics-token-0123456789";
const metrics = new Metrics();

it.each([
  ["no METRICS_TOKEN is set, whatever the request bears", undefined, "GET", "Bearer undefined"],
  ["the request bears no token", TOKEN, "GET", undefined],
  ["the request bears another token", TOKEN, "GET", "Bearer another-token-0123456789"],
  ["the request is not a GET", TOKEN, "POST", `Bearer ${TOKEN}`],
])("/metrics falls through to the site's 404 page when %s", (_case, token, method, authorization) => {
  const request = { method, headers: { authorization } } as IncomingMessage;
  expect(metrics.handler(token)(request, {} as ServerResponse)).toBe(false);
});
