import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { countSettledViews, type LoggedView } from "~/insight/view-log.server";

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true })));

it("two instances sharing nginx's folder count each view of a past second once, skip other lines, and leave the seconds nginx may still write", async () => {
  const folder = mkdtempSync(join(tmpdir(), "page-views-"));
  folders.push(folder);
  const now = 1_764_350_000_500;
  const second = Math.floor(now / 1000);
  const line = (query: string) => JSON.stringify({ query, referer: "https://news.example/", host: "prevly.com.br" });
  writeFileSync(join(folder, `${second - 5}.log`), `${line("utm_source=a")}\n{\nnull\n{"query":1}\n`);
  writeFileSync(join(folder, `${second - 2}.log`), `${line("utm_source=b")}\n${line("utm_source=c")}\n`);
  writeFileSync(join(folder, `${second - 1}.log`), `${line("utm_source=late")}\n`);
  writeFileSync(join(folder, "notes.txt"), `${line("utm_source=other")}\n`);

  const counted: LoggedView[] = [];
  const instance = () => countSettledViews(folder, (view) => counted.push(view), now);
  await Promise.all([instance(), instance()]);

  const queries = counted.map((view) => view.query).sort();
  expect(queries).toEqual(["utm_source=a", "utm_source=b", "utm_source=c"]);
  expect(readdirSync(folder).sort()).toEqual([`${second - 1}.log`, "notes.txt"]);
});
