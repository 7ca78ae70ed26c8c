/**
 * The Prometheus configuration, alert rules and recording rules ops load as they are (deploy/prometheus/), checked
 * and tested with promtool, from Debian's prometheus package (npm test's pretest installs it). Their cases
 * (rule-cases.ts) are written here as promtool's YAML, each firing alert given its rule's severity and description.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { findProgram } from "../harness/programs";
import { alertCases, campaignCounts, type AlertCase } from "./rule-cases";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "deploy/prometheus/prometheus.yml");
const RULES = join(ROOT, "deploy/prometheus/alerts.yml");
const RECORDING_RULES = join(ROOT, "deploy/prometheus/insight.yml");
const rules = readFileSync(RULES, "utf8");

const promtoolPath = findProgram("promtool");
const scratch = mkdtempSync(join(tmpdir(), "alert-rules-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function promtool(...args: string[]): Promise<{ ok: boolean; output: string }> {
  if (!promtoolPath)
    throw new Error("promtool is missing: install Debian's prometheus package (npm test's pretest does)");
  return new Promise((resolve) => {
    execFile(promtoolPath, args, (error, stdout, stderr) => resolve({ ok: !error, output: stdout + stderr }));
  });
}

/** A threshold's value is the last number on a line ending `# NAME`, e.g. `> 900 # SIGNUPS_WAITING_SECONDS`. */
const THRESHOLD = /(\d+(?:\.\d+)?)([smh]?)([^\d\n#]*)# ([A-Z][A-Z0-9_]+)$/gm;
const uses = [...rules.matchAll(THRESHOLD)].map(([, value, unit, , name]) => [name!, value! + unit!] as const);
const thresholds = new Map(uses);
const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** The rules with one threshold times `factor` wherever it is used (a duration in seconds, as Prometheus reads no
 * fractions of its units). */
const scaled = (name: string, factor: number) =>
  rules.replace(THRESHOLD, (line, value: string, unit: string, rest: string, named: string) => {
    if (named !== name) return line;
    return (unit ? `${Number(value) * SECONDS[unit]! * factor}s` : `${Number(value) * factor}`) + `${rest}# ${named}`;
  });

type Rule = { alert?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
const alerts: Rule[] = (parse(rules) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((group) => group.rules);
const alertNamed = new Map(alerts.map((rule) => [rule.alert, rule]));

const inputSeries = (series: Record<string, string>) =>
  Object.entries(series).map(([name, values]) => ({ series: name, values }));

/** `cases` as promtool's test files beside `rulesText`, in a folder of their own: one file per interval. */
function ruleTestsWith(rulesText: string, folder: string, cases: AlertCase[]): string[] {
  mkdirSync(join(scratch, folder));
  writeFileSync(join(scratch, folder, "alerts.yml"), rulesText);
  return (["15s", "1m"] as const).flatMap((interval) => {
    const own = cases.filter((test) => (test.interval ?? "15s") === interval);
    if (own.length === 0) return [];
    const tests = own.map(({ name, series, expect: expected }) => ({
      name,
      interval,
      input_series: inputSeries(series),
      alert_rule_test: expected.map(([eval_time, alertname, summary, labels]) => {
        const { labels: ruleLabels, annotations } = alertNamed.get(alertname)!;
        const fired = {
          exp_labels: { ...ruleLabels, ...labels },
          exp_annotations: { summary, description: annotations!.description },
        };
        return { eval_time, alertname, exp_alerts: summary === undefined ? [] : [fired] };
      }),
    }));
    const file = join(scratch, folder, `alerts-${interval}.test.yml`);
    writeFileSync(file, stringify({ rule_files: ["alerts.yml"], evaluation_interval: interval, tests }));
    return [file];
  });
}

/** The recording rules' case as promtool's test file, beside a copy of the rules. */
function recordingRuleTests(): string {
  const { name, series, recorded } = campaignCounts;
  const promql_expr_test = Object.entries(recorded).map(([expr, samples]) => ({
    expr,
    eval_time: "120m",
    exp_samples: Object.entries(samples).map(([labels, value]) => ({ labels: `${expr}{${labels}}`, value })),
  }));
  copyFileSync(RECORDING_RULES, join(scratch, "insight.yml"));
  const file = join(scratch, "insight.test.yml");
  const tests = [{ name, interval: "1m", input_series: inputSeries(series), promql_expr_test }];
  writeFileSync(file, stringify({ rule_files: ["insight.yml"], evaluation_interval: "1m", tests }));
  return file;
}

/** The alerts whose rule uses threshold `name`: the only cases changing it can fail (promtool's time grows with each). */
const alertsUsing = (name: string) =>
  rules
    .split(/^ *- alert: /m)
    .slice(1)
    .filter((rule) => rule.includes(`# ${name}\n`))
    .map((rule) => rule.slice(0, rule.indexOf("\n")));
const casesOf = (names: string[]) =>
  alertCases.filter((test) => test.expect.some(([, alert]) => names.includes(alert)));

// promtool's runs are seconds of CPU each: on a machine busy with other runs they outlast vitest's 5 s default.
describe("the alert rules (deploy/prometheus/alerts.yml), with promtool", { timeout: 30_000 }, () => {
  it("promtool check rules and check config accept them, the recording rules and prometheus.yml, its token file in place", async () => {
    const folder = join(scratch, "config");
    mkdirSync(folder);
    copyFileSync(CONFIG, join(folder, "prometheus.yml"));
    copyFileSync(RULES, join(folder, "alerts.yml"));
    copyFileSync(RECORDING_RULES, join(folder, "insight.yml"));
    writeFileSync(join(folder, "metrics-token"), "a-token-of-16-characters");
    const checkedRules = await promtool("check", "rules", RULES);
    expect(checkedRules.output).toContain("SUCCESS: 12 rules found");
    expect(checkedRules.ok).toBe(true);
    const checkedConfig = await promtool("check", "config", join(folder, "prometheus.yml"));
    expect(checkedConfig.output).toContain("SUCCESS: 2 rule files found");
    expect(checkedConfig.ok).toBe(true);
  });

  it("promtool test rules: each alert fires on the series that must fire it and on no other", async () => {
    const tested = await promtool("test", "rules", ...ruleTestsWith(rules, "all", alertCases), recordingRuleTests());
    expect(tested.ok, tested.output).toBe(true);
  });

  it("every alert says what happened and what to do, and is tested firing and quiet", () => {
    expect(alerts.length).toBe(12);
    for (const { alert, annotations } of alerts) {
      expect(annotations?.summary, `${alert}'s summary`).toBeTruthy();
      expect(annotations?.description, `${alert}'s description`).toBeTruthy();
      const own = alertCases.flatMap((test) => test.expect).filter(([, name]) => name === alert);
      const firing = new Set(own.map(([, , summary]) => summary !== undefined));
      expect(firing, `${alert} tested firing (true) and quiet (false)`).toEqual(new Set([true, false]));
    }
  });

  it("each threshold has one value wherever it is used", () => {
    expect(uses.filter(([name, value]) => thresholds.get(name) !== value)).toEqual([]);
  });

  // promtool runs on one core: two at a time. A count of replicas is whole: fewer than 0.5 is fewer than 1.
  const changes = [...thresholds.keys()].flatMap((name) => [[name, 2] as const, [name, 0.5] as const]);
  it.concurrent.each(changes.filter(([name, factor]) => name !== "REPLICAS_REQUIRED" || factor !== 0.5))(
    "%s times %d fails a case of promtool test rules",
    async (name, factor) => {
      const files = ruleTestsWith(scaled(name, factor), `${name}-${factor}`, casesOf(alertsUsing(name)));
      expect(files.length).toBeGreaterThan(0);
      const tested = await promtool("test", "rules", ...files);
      // A case's alerts differ from those expected (not a file promtool cannot read).
      expect(tested.output).toMatch(/alertname: \w+, time: /);
      expect(tested.ok).toBe(false);
    },
  );

  it("docs/operations.md explains each threshold with the value the rules use", () => {
    const docs = readFileSync(join(ROOT, "docs/operations.md"), "utf8");
    const documented = new Map(
      [...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]+?) \|/gm)].map(([, name, value]) => [name!, value!.trim()]),
    );
    expect(thresholds.size).toBeGreaterThan(0);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(thresholds));
  });
});
