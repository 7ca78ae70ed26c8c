/**
 * What the container suites share: the `docker` CLI (a real engine, or podman's
 * Docker API that .ci/run prepares) and checks reported one line each, the run
 * failing, never skipping, when one fails.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { ROOT } from "../harness/app-server";

export const run = promisify(execFile);

/** Runs a container CLI (`docker`, `docker-compose`) from the repository's root; its standard output, trimmed. */
export async function cli(program: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(program, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env });
  return stdout.trim();
}

export const docker = (...args: string[]) => cli("docker", args);

/** The Node image the Dockerfile's runtime stage builds on: Node and npm, nothing else. */
export function runtimeImage(): string {
  const image = /^FROM (node:\S+) AS runtime/m.exec(readFileSync(`${ROOT}Dockerfile`, "utf8"))?.[1];
  assert(image, "no runtime stage on a node image in the Dockerfile");
  return image;
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

const results: boolean[] = [];

/** Runs one named check and prints ✓ or ✗ with its detail. */
export async function check(name: string, body: () => Promise<string | void>): Promise<void> {
  try {
    const detail = await body();
    results.push(true);
    console.log(`  ✓ ${name}${detail ? ` (${detail})` : ""}`);
  } catch (error) {
    results.push(false);
    console.log(`  ✗ ${name}\n      ${String(error).split("\n").join("\n      ")}`);
  }
}

/** Prints the tally and exits 0 only when checks ran and all passed. */
export function finish(): never {
  const failed = results.filter((ok) => !ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 && results.length > 0 ? 0 : 1);
}
