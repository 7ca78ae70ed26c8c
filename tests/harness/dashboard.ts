/**
 * The Grafana dashboard shipped in deploy/grafana/ and its queries, as Prometheus would run them: Grafana's own
 * variables replaced by fixed windows.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT } from "./app-server";

const GRAFANA = join(ROOT, "deploy/grafana");
const DASHBOARDS = join(GRAFANA, "dashboards");

type Target = { refId: string; expr: string; datasource?: { uid?: string } };
export type Panel = { id: number; type: string; title: string; datasource?: { uid?: string }; targets?: Target[] };
export type Dashboard = { uid: string; title: string; panels: Panel[] };

export const dashboards = (): Dashboard[] =>
  readdirSync(DASHBOARDS)
    .filter((file) => file.endsWith(".json"))
    .map((file) => JSON.parse(readFileSync(join(DASHBOARDS, file), "utf8")) as Dashboard);

/** The uid of the Prometheus data source deploy/grafana/provisioning/ makes. */
export function provisionedDatasourceUid(): string {
  const folder = join(GRAFANA, "provisioning/datasources");
  const [file] = readdirSync(folder);
  const { datasources } = parse(readFileSync(join(folder, file!), "utf8")) as { datasources: Array<{ uid: string }> };
  return datasources[0]!.uid;
}

/** Grafana's variables as a query sent now would have them: the time range, and four scrapes for rates. */
const VARIABLES: Record<string, string> = { $__range: "1h", $__rate_interval: "1m" };

export type PanelQuery = { panel: string; refId: string; promql: string };

/** Every query of every panel, its variables replaced. */
export const panelQueries = (): PanelQuery[] =>
  dashboards().flatMap((dashboard) =>
    dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({
        panel: `${dashboard.title}: ${panel.title}`,
        refId: target.refId,
        promql: target.expr.replace(/\$__\w+/g, (name) => VARIABLES[name] ?? name),
      })),
    ),
  );
