import type { IncomingMessage, ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { Insight } from "~/insight/insight.server";
import { Metrics } from "~/server/metrics.server";
import { ROOT } from "../harness/app-server";
import { parseMetrics } from "../harness/metrics";

const TOKEN = "metrics-token-0123456789";
const metrics = new Metrics();

it.each([
  ["no METRICS_TOKEN is set, whatever the request bears", undefined, "Bearer undefined"],
  ["the request bears no token", TOKEN, undefined],
  ["the request bears another token", TOKEN, "Bearer another-token-0123456789"],
])("/metrics falls through to the site's 404 page when %s", (_case, token, authorization) => {
  const request = { method: "GET", headers: { authorization } } as IncomingMessage;
  expect(metrics.handler(token)(request, {} as ServerResponse)).toBe(false);
});

type Rules = { groups: Array<{ rules: Array<{ record?: string; expr: string }> }> };
const rules = ["alerts.yml", "insight.yml"].flatMap((file) =>
  (parse(readFileSync(join(ROOT, "deploy/prometheus", file), "utf8")) as Rules).groups.flatMap((group) => group.rules),
);
/** Prometheus' own series and the Redis exporter's, which the app does not show. */
const NOT_THE_APPS = /^(up|redis_\w+)$/;
/** Counted by label values the app does not list in advance (the sign-ups' outcomes): no series before the first. */
const SHOWN_ONCE_COUNTED = new Set(["signups_total"]);
/** Each series selector of the rules' queries: a name not called as a function, with its label matchers. */
const selectors = rules.flatMap(({ expr }) => {
  const query = expr.replace(/#.*$/gm, "").replace(/\b(by|on)\s*\([^)]*\)|\[[^\]]*\]/g, "");
  return [...query.matchAll(/\b([a-z_][\w:]*)(?![\w:])(\{[^}]*\})?(?!\s*\()/g)]
    .filter(([, name]) => !["and", "or", "unless"].includes(name!) && !NOT_THE_APPS.test(name!))
    .map(([, name, matchers = ""]) => ({ name: name!, matchers: [...matchers.matchAll(/(\w+)(=~|!=|=)"([^"]*)"/g)] }));
});

it("every series the alert and recording rules read of the apps is one they register, and each label value they match of a series shown from the start is there at 0", async () => {
  // What an instance in queued mode registers as it starts (app/services.server.ts).
  const fresh = new Metrics();
  new Insight(fresh.registry);
  fresh.watchReadiness(async () => null);
  fresh.watch({ counts: async () => ({ waiting: 0 }), oldestUndeliveredMs: async () => 0 });
  const shown = parseMetrics(await fresh.registry.metrics());
  const recorded = new Set(rules.map((rule) => rule.record));
  expect(selectors.length).toBeGreaterThan(10);
  for (const { name, matchers } of selectors) {
    if (name.includes(":")) expect(recorded, name).toContain(name);
    else expect(fresh.registry.getSingleMetric(name), name).toBeDefined();
    if (SHOWN_ONCE_COUNTED.has(name)) continue;
    for (const [, label, , values] of matchers)
      for (const value of values!.split("|"))
        expect(shown, `${name}{${label}="${value}"}`).toContainEqual({ name, labels: { [label!]: value }, value: 0 });
  }
});
