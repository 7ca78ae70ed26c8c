import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BALANCER_PAGES_FOLDER, balancerPages } from "~/page/balancer-pages.server";
import { ROOT } from "../harness/app-server";

describe("the balancer's own pages", () => {
  it("are committed as the build writes them from app/content.ts (run `npm run build` and commit them)", () => {
    for (const [file, html] of Object.entries(balancerPages())) {
      expect([file, readFileSync(join(ROOT, BALANCER_PAGES_FOLDER, file), "utf8")]).toEqual([file, html]);
    }
  });
});
