/**
 * The Prometheus configuration and alert rules ops load as they are (deploy/prometheus/), checked and tested with
 * promtool, from Debian's prometheus package (npm test's pretest installs it). Every alert has cases in
 * tests/prometheus/alerts.test.yml (PrevlyFormBroken, which looks back hours, in form-broken.test.yml): series that
 * must fire it, each just past its thresholds, and series that must not (a short blip, a recovery). Counters there
 * start at 0, as the apps show them from the start. A firing case names the alert's labels and summary; its
 * description, the rule's own text, is filled in here.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { findProgram } from "../harness/programs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "deploy/prometheus/prometheus.yml");
const RULES = join(ROOT, "deploy/prometheus/alerts.yml");
/** The campaign counts' recording rules, tested by tests/prometheus/insight.test.yml. */
const RECORDING_RULES = join(ROOT, "deploy/prometheus/insight.yml");
const RULE_TESTS = readdirSync(join(ROOT, "tests/prometheus"))
  .filter((file) => file.endsWith(".test.yml"))
  .map((file) => join(ROOT, "tests/prometheus", file));
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

/** The rules with one threshold doubled wherever it is used: a bigger share, count, age or wait alerts later. */
const loosened = (name: string) =>
  rules.replace(THRESHOLD, (line, value: string, unit: string, rest: string, named: string) =>
    named === name ? `${Number(value) * 2}${unit}${rest}# ${named}` : line,
  );

type Rule = { alert?: string; annotations?: Record<string, string> };
const alerts: Rule[] = (parse(rules) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((group) => group.rules);
type RuleTest = { alertname: string; exp_alerts: Array<{ exp_annotations?: Record<string, string> }> };
type RuleTestGroup = { alert_rule_test?: RuleTest[] };
type RuleTestFile = { tests: RuleTestGroup[] };
const cases: RuleTest[] = RULE_TESTS.flatMap((file) =>
  (parse(readFileSync(file, "utf8")) as RuleTestFile).tests.flatMap((test) => test.alert_rule_test ?? []),
);
/** The cases leave each alert's description out: it is the rule's own text, with nothing for promtool to render. */
const descriptions = new Map(alerts.map(({ alert, annotations }) => [alert, annotations?.description]));

/** Every value as its text: promtool reads the numbers itself, and `values: 0x80` is 0 eighty-one times, not 128. */
const AS_TEXT = { schema: "failsafe" } as const;

/**
 * The case groups `keep` selects, each firing alert given its rule's description, beside `rulesText`, in a folder
 * of their own laid out as their `rule_files` expect.
 */
function ruleTestsWith(rulesText: string, folder: string, keep: (group: RuleTestGroup) => boolean): string[] {
  mkdirSync(join(scratch, folder, "tests/prometheus"), { recursive: true });
  mkdirSync(join(scratch, folder, "deploy/prometheus"), { recursive: true });
  writeFileSync(join(scratch, folder, "deploy/prometheus/alerts.yml"), rulesText);
  copyFileSync(RECORDING_RULES, join(scratch, folder, "deploy/prometheus/insight.yml"));
  return RULE_TESTS.flatMap((file) => {
    const ruleTests = parse(readFileSync(file, "utf8"), AS_TEXT) as RuleTestFile;
    const own = ruleTests.tests.filter(keep);
    if (own.length === 0) return [];
    for (const { alertname, exp_alerts } of own.flatMap((group) => group.alert_rule_test ?? []))
      for (const expected of exp_alerts)
        expected.exp_annotations = { ...expected.exp_annotations, description: descriptions.get(alertname)! };
    const copy = join(scratch, folder, "tests/prometheus", basename(file));
    writeFileSync(copy, stringify({ ...ruleTests, tests: own }, AS_TEXT));
    return [copy];
  });
}

/** The alerts whose rule uses threshold `name`: the only cases loosening it can fail (promtool's time grows with each). */
const alertsUsing = (name: string) =>
  rules
    .split(/^ *- alert: /m)
    .slice(1)
    .filter((rule) => rule.includes(`# ${name}\n`))
    .map((rule) => rule.slice(0, rule.indexOf("\n")));

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
    const tested = await promtool("test", "rules", ...ruleTestsWith(rules, "all", () => true));
    expect(tested.output).toContain("SUCCESS");
    expect(tested.ok).toBe(true);
  });

  it("every alert says what happened and what to do, and is tested firing and quiet", () => {
    expect(alerts.length).toBe(12);
    for (const { alert, annotations } of alerts) {
      expect(annotations?.summary, `${alert}'s summary`).toBeTruthy();
      expect(annotations?.description, `${alert}'s description`).toBeTruthy();
      const own = cases.filter((test) => test.alertname === alert);
      expect(
        own.some((test) => test.exp_alerts.length > 0),
        `a case firing ${alert}`,
      ).toBe(true);
      expect(
        own.some((test) => test.exp_alerts.length === 0),
        `a case where ${alert} must not fire`,
      ).toBe(true);
    }
  });

  it("each threshold has one value wherever it is used", () => {
    expect(uses.filter(([name, value]) => thresholds.get(name) !== value)).toEqual([]);
  });

  // promtool runs on one core: two at a time.
  it.concurrent.each([...thresholds.keys()])("loosening %s fails a case of promtool test rules", async (name) => {
    const files = ruleTestsWith(loosened(name), name, (group) =>
      Boolean(group.alert_rule_test?.some(({ alertname }) => alertsUsing(name).includes(alertname))),
    );
    expect(files.length).toBeGreaterThan(0);
    const tested = await promtool("test", "rules", ...files);
    // A case's alerts differ from those expected (not a file promtool cannot read).
    expect(tested.output).toMatch(/alertname: \w+, time: /);
    expect(tested.ok).toBe(false);
  });

  it("docs/operations.md explains each threshold with the value the rules use", () => {
    const docs = readFileSync(join(ROOT, "docs/operations.md"), "utf8");
    const documented = new Map(
      [...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]+?) \|/gm)].map(([, name, value]) => [name!, value!.trim()]),
    );
    expect(thresholds.size).toBeGreaterThan(0);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(thresholds));
  });
});
