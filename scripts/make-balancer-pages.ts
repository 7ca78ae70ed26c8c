/**
 * `npm run build`'s last step: the pages the shipped nginx answers by itself (deploy/nginx.conf), written from
 * app/content.ts into deploy/balancer-pages/, which compose.yaml mounts. Committed, so the stack runs from a clone;
 * a unit test fails when they differ from what this writes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BALANCER_PAGES_FOLDER, balancerPages } from "../app/page/balancer-pages.server";
import { ROOT } from "../tests/harness/app-server";

const folder = join(ROOT, BALANCER_PAGES_FOLDER);
mkdirSync(folder, { recursive: true });
for (const [file, html] of Object.entries(balancerPages())) writeFileSync(join(folder, file), html);
