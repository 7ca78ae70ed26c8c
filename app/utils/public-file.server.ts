import { readFileSync } from "node:fs";
import { join } from "node:path";
import { APP_ROOT } from "./app-root.server";

/** A built asset, by the URL the compiler gave it ("/build/_assets/…"), as text. */
export function readPublicFile(url: string): string {
  if (!url.startsWith("/build/") || url.includes("..")) throw new Error(`not a built asset: ${url}`);
  return readFileSync(join(APP_ROOT, "public", url), "utf8");
}
