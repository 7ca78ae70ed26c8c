import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder holding package.json: the server's home, wherever it was started from. */
export const APP_ROOT = findAppRoot(fileURLToPath(import.meta.url));

function findAppRoot(start: string): string {
  for (let folder = dirname(start); ; folder = dirname(folder)) {
    if (existsSync(join(folder, "package.json"))) return folder;
    if (dirname(folder) === folder) return process.cwd();
  }
}

/** A setting's path: absolute as given, relative ones from the app's folder (not the working directory). */
export const fromAppRoot = (path: string) => resolve(APP_ROOT, path);

/** A built asset, by the URL the compiler gave it ("/build/_assets/…"), as text. */
export function readPublicFile(url: string): string {
  if (!url.startsWith("/build/") || url.includes("..")) throw new Error(`not a built asset: ${url}`);
  return readFileSync(join(APP_ROOT, "public", url), "utf8");
}
