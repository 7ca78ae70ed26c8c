/**
 * What the container suites share: the `docker` CLI, a real engine or podman's Docker API that .ci/run prepares.
 * They fail, never skip, when no engine answers.
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

/** The image `npm run test:container` builds and keeps for `npm run test:compose` when CI names it: one build a run. */
export const SHARED_IMAGE = process.env.PREVLY_IMAGE;

/** The Node image the Dockerfile's runtime stage builds on: Node and npm, nothing else. */
export function runtimeImage(): string {
  const image = /^FROM (node:\S+) AS runtime/m.exec(readFileSync(`${ROOT}Dockerfile`, "utf8"))?.[1];
  if (!image) throw new Error("no runtime stage on a node image in the Dockerfile");
  return image;
}
