/**
 * The Grafana dashboard (deploy/grafana/): each panel reads the provisioned Prometheus and its queries are PromQL
 * that promtool parses. That they return data is proven against a running Prometheus by `npm run test:compose`.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dashboards, panelQueries, provisionedDatasourceUid } from "../harness/dashboard";
import { findProgram } from "../harness/programs";

const scratch = mkdtempSync(join(tmpdir(), "dashboard-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the Grafana dashboard (deploy/grafana/dashboards/)", () => {
  it("every panel has a title and queries, all from the provisioned Prometheus", () => {
    const uid = provisionedDatasourceUid();
    const panels = dashboards().flatMap((dashboard) => dashboard.panels.filter((panel) => panel.type !== "row"));
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) {
      expect(panel.title, `panel ${panel.id}`).toBeTruthy();
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      expect(panel.datasource?.uid, panel.title).toBe(uid);
      for (const target of panel.targets!) expect(target.datasource?.uid, panel.title).toBe(uid);
    }
    expect(new Set(dashboards().map((dashboard) => dashboard.uid)).size).toBe(dashboards().length);
  });

  it("every query is PromQL that promtool parses", async () => {
    const promtool = findProgram("promtool");
    if (!promtool)
      throw new Error("promtool is missing: install Debian's prometheus package (npm test's pretest does)");
    // Each query as a recording rule: `promtool check rules` parses every expression.
    const rules = panelQueries().map(({ promql }, index) => ({ record: `dashboard_query_${index}`, expr: promql }));
    const file = join(scratch, "panels.yml");
    writeFileSync(file, JSON.stringify({ groups: [{ name: "dashboard", rules }] }));
    const output = await new Promise<string>((resolve) =>
      execFile(promtool, ["check", "rules", file], (error, stdout, stderr) =>
        resolve(`${error ? "FAILED " : ""}${stdout}${stderr}`),
      ),
    );
    expect(output).toContain(`SUCCESS: ${rules.length} rules found`);
  });
});
