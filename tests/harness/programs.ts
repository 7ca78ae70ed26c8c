import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** A program on PATH or in Debian's sbin, or null. */
export function findProgram(name: string): string | null {
  try {
    const found = execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
    if (found) return found;
  } catch {
    // not on PATH
  }
  return existsSync(`/usr/sbin/${name}`) ? `/usr/sbin/${name}` : null;
}
