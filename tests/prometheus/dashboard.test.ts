/**
 * The Grafana dashboard (deploy/grafana/): each panel reads the provisioned Prometheus. That its queries parse and
 * return data is proven against a running Prometheus by `npm run test:compose`.
 */
import { describe, expect, it } from "vitest";
import { dashboards, provisionedDatasourceUid } from "../harness/dashboard";

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
});
