import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { countLoggedViews, countSettledViews, type LoggedView } from "~/insight/view-log.server";

const folders: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true }));
});
function newFolder() {
  const folder = mkdtempSync(join(tmpdir(), "page-views-"));
  folders.push(folder);
  return folder;
}

it("two instances sharing nginx's folder count each view of a past second once, and a file a dead instance claimed; skip other lines, and leave the seconds nginx may still write and the files a live one counts", async () => {
  const folder = newFolder();
  const now = 1_764_350_000_500;
  const second = Math.floor(now / 1000);
  const line = (query: string) => JSON.stringify({ query, referer: "https://news.example/", host: "prevly.com.br" });
  writeFileSync(join(folder, `${second - 5}.log`), `${line("utm_source=a")}\n{\nnull\n{"query":1}\n`);
  writeFileSync(join(folder, `${second - 2}.log`), `${line("utm_source=b")}\n${line("utm_source=c")}\n`);
  writeFileSync(join(folder, `${second - 1}.log`), `${line("utm_source=late")}\n`);
  writeFileSync(join(folder, "notes.txt"), `${line("utm_source=other")}\n`);
  const claimed = (ofSecond: number, atMs: number) => `${ofSecond}.log.counting-${atMs}-${randomUUID()}`;
  const abandoned = claimed(second - 125, now - 120_000);
  const beingCounted = claimed(second - 3, now - 100);
  writeFileSync(join(folder, abandoned), `${line("utm_source=abandoned")}\n`);
  writeFileSync(join(folder, beingCounted), `${line("utm_source=elsewhere")}\n`);

  const counted: LoggedView[] = [];
  const instance = () => countSettledViews(folder, (view) => counted.push(view), now);
  await Promise.all([instance(), instance()]);

  const queries = counted.map((view) => view.query).sort();
  expect(queries).toEqual(["utm_source=a", "utm_source=abandoned", "utm_source=b", "utm_source=c"]);
  expect(readdirSync(folder).sort()).toEqual([`${second - 1}.log`, beingCounted, "notes.txt"].sort());
});

it("lets other work run while it counts a busy second, not only once the whole file is counted", async () => {
  const folder = newFolder();
  const views = 10_000;
  const line = JSON.stringify({ query: "utm_source=busy", referer: "", host: "prevly.com.br" });
  writeFileSync(join(folder, "1764349990.log"), `${line}\n`.repeat(views));

  let counted = 0;
  let countedWhenOtherWorkRan: number | undefined;
  await countSettledViews(
    folder,
    () => {
      if (counted++ === 0) setImmediate(() => (countedWhenOtherWorkRan = counted));
    },
    1_764_350_000_000,
  );

  expect(counted).toBe(views);
  expect(countedWhenOtherWorkRan).toBeLessThan(views);
});

it("logs a failure that recurs at every look once, and its end once", async () => {
  vi.useFakeTimers({ toFake: ["setTimeout", "Date"] });
  const logged: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => void logged.push(JSON.parse(line).event));
  const folder = newFolder();
  // Due, and too long a name to claim under: the rename fails each look, naming a claim of that look's own.
  const unclaimable = join(folder, `${"0".repeat(240)}1764349000.log`);
  writeFileSync(unclaimable, "");
  let counted = 0;
  countLoggedViews(folder, () => counted++);
  const ioDone = () => new Promise((resolve) => setImmediate(resolve));
  // A look's view, in a file counted just before the unclaimable one; the look has ended once the next is due.
  const look = async () => {
    writeFileSync(join(folder, "0.log"), JSON.stringify({ query: "", referer: "", host: "prevly.com.br" }));
    await vi.advanceTimersByTimeAsync(1_000);
    while (vi.getTimerCount() === 0) await ioDone();
  };

  for (let times = 0; times < 3; times++) await look();
  unlinkSync(unclaimable);
  await look();

  expect(counted).toBe(4);
  expect(logged).toEqual(["view-log-error", "view-log-recovered"]);
});
