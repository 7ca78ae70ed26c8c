import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BALANCER_PAGES_FOLDER, balancerPages } from "~/page/balancer-pages.server";
import { ROOT } from "../harness/app-server";

/** Every status nginx answers by itself (408 it closes unanswered; 494 it sends as 400). */
const NGINX_OWN = [400, 405, 411, 413, 414, 429, 494, 500, 501, 502, 503, 504, 505];

describe("the balancer's own pages", () => {
  it("are committed as the build writes them from app/content.ts (run `npm run build` and commit them)", () => {
    for (const [file, html] of Object.entries(balancerPages())) {
      expect([file, readFileSync(join(ROOT, BALANCER_PAGES_FOLDER, file), "utf8")]).toEqual([file, html]);
    }
  });

  it("answer every status nginx sends by itself, in Portuguese", () => {
    const config = readFileSync(join(ROOT, "deploy/nginx.conf"), "utf8");
    const page = `/__balancer/(?:${Object.keys(balancerPages()).join("|")});`;
    const answered = (status: number) => new RegExp(`error_page (?:\\d+ )*${status} (?:\\d+ )*${page}`).test(config);
    expect(NGINX_OWN.filter((status) => !answered(status))).toEqual([]);
  });
});
