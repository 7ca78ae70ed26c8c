import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** README.md and every page under docs/, as paths from the repository's root. */
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".md"))
    .map((path) => join("docs", path)),
];

const read = (page: string) => readFileSync(join(ROOT, page), "utf8");
const withoutCodeBlocks = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutCodeBlocks(read(page)).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replaceAll(" ", "-");
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats ? `${slug}-${repeats}` : slug);
  }
  return anchors;
}

/** What a link of `page` names and cannot be found: a missing file, or an anchor its page lacks. */
function brokenLinks(page: string): string[] {
  const text = withoutCodeBlocks(read(page));
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)|(?:src|href)="([^"]+)"/g)].map(([, link, attr]) => link ?? attr!);
  return targets.filter((target) => {
    if (/^[a-z]+:/.test(target)) return false;
    const [path = "", anchor] = target.split("#");
    const file = path ? normalize(join(dirname(page), path)) : page;
    if (!existsSync(join(ROOT, file))) return true;
    return anchor !== undefined && file.endsWith(".md") && !anchorsOf(file).has(anchor);
  });
}

/** The repository paths a page names in code spans (`tests/unit/x.test.ts`, `app/…:12`) that do not exist. */
const missingPaths = (page: string) =>
  [...read(page).matchAll(/`((?:app|tests|deploy|scripts|docs)\/[\w./$-]+?)(?::\d+)?`/g)]
    .map(([, path]) => path!)
    .filter((path) => !path.includes("*") && !existsSync(join(ROOT, path)));

describe("the documentation", () => {
  it.each(PAGES)("%s links only to files and headings that exist, and names only files that exist", (page) => {
    expect([...brokenLinks(page), ...missingPaths(page)]).toEqual([]);
  });

  it("README opens the door: at most 150 lines, the page's words and the architecture in its first screen", () => {
    const lines = read("README.md").split("\n");
    expect(lines.length).toBeLessThanOrEqual(150);
    const firstScreen = lines.slice(0, 40).join("\n");
    expect(firstScreen).toContain("app/content.ts");
    expect(firstScreen).toContain("(docs/architecture.md)");
  });
});
