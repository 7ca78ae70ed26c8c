/**
 * Debian's redis-server and nginx, started on free loopback ports for tests and
 * scripts: real servers, never mocks. `npm test` installs both when missing
 * (scripts/ensure-test-tools.ts).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BALANCER_PAGES_FOLDER } from "~/page/balancer-pages.server";
import { freePort } from "./app-server";
import { findProgram } from "./programs";
import { waitForPort } from "./wait";

function requireProgram(name: string, debianPackage: string): string {
  const path = findProgram(name);
  if (!path) throw new Error(`${name} is not installed: apt-get install ${debianPackage}`);
  return path;
}

/** A command to the Redis (or Sentinel) on the loopback `port` through redis-cli; its answer, trimmed. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(requireProgram("redis-cli", "redis-server"), [
    "-p",
    String(port),
    ...args,
  ]);
  return stdout.trim();
}

export type RunningRedis = {
  url: string;
  port: number;
  /** SIGKILL: Redis vanishes mid-command, as in a crash or a node lost. */
  kill: () => Promise<void>;
  /** Starts it again on the same port: empty, or from its append-only log when persistent. */
  restart: () => Promise<void>;
  /** SIGSTOP / SIGCONT: Redis still holds its connections but answers nothing, as a frozen host. */
  freeze: () => void;
  thaw: () => void;
  /** A command through redis-cli, e.g. `cli("DEBUG", "SLEEP", "2")`. */
  cli: (...args: string[]) => Promise<string>;
  stop: () => Promise<void>;
};

/**
 * redis-server on a free loopback port, without persistence unless
 * `persistent`: then with an append-only log synced on every write, as
 * compose.yaml runs it, so a kill and restart keeps what was written.
 * `options`: more of its command line, e.g. `["--maxmemory-policy", "allkeys-lru"]`.
 */
export async function startRedis({
  persistent = false,
  options = [],
}: { persistent?: boolean; options?: string[] } = {}): Promise<RunningRedis> {
  const server = requireProgram("redis-server", "redis-server");
  const port = await freePort();
  const dataDir = persistent ? mkdtempSync(join(tmpdir(), "redis-")) : undefined;
  const persistence = dataDir
    ? ["--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir]
    : ["--appendonly", "no"];
  let child: ChildProcess | null = null;

  async function launch(): Promise<void> {
    child = spawn(server, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence, ...options], {
      stdio: "ignore",
    });
    await waitForPort(port);
  }
  async function kill(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  }

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: launch,
    freeze: () => child?.kill("SIGSTOP"),
    thaw: () => child?.kill("SIGCONT"),
    cli: (...args) => redisCli(port, ...args),
    stop: async () => {
      await kill();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type RunningNginx = {
  origin: string;
  /** The files of the page cache: what nginx has stored. */
  cachedFiles: () => string[];
  stop: () => Promise<void>;
};

/** A folder for the page views nginx logs and apps count (PAGE_VIEWS_FOLDER), writable by nginx's workers. */
export function makePageViewsFolder(parent = tmpdir()): string {
  const folder = mkdtempSync(join(parent, "page-views-"));
  chmodSync(folder, 0o777);
  return folder;
}

/** The load balancer's configuration shipped with compose.yaml, and its own error pages. */
export const DEPLOY_NGINX_CONF = fileURLToPath(new URL("../../deploy/nginx.conf", import.meta.url));
const BALANCER_PAGES = fileURLToPath(new URL(`../../${BALANCER_PAGES_FOLDER}`, import.meta.url));

/**
 * nginx as the load balancer in front of `upstreams` (origins), with the very
 * configuration compose.yaml ships (deploy/nginx.conf): only its upstream
 * servers, its port and its working paths (temporary files, the page cache)
 * are replaced.
 */
export async function startNginxBalancer(
  upstreams: string[],
  { pageViewsFolder }: { pageViewsFolder?: string } = {},
): Promise<RunningNginx> {
  const nginx = requireProgram("nginx", "nginx");
  const dir = mkdtempSync(join(tmpdir(), "nginx-"));
  // Run as root, nginx's workers are `nobody`: they write the page cache here and read the balancer's pages from
  // a copy here, since a checkout inside a folder only its owner may enter (root's home) is closed to them.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "tmp"));
  const balancerPages = join(dir, "balancer-pages");
  cpSync(BALANCER_PAGES, balancerPages, { recursive: true });
  // Where the apps that count its page views look (their PAGE_VIEWS_FOLDER); none: logged, and counted by nobody.
  const pageViews = pageViewsFolder ?? makePageViewsFolder(dir);
  const port = await freePort();
  const shipped = readFileSync(DEPLOY_NGINX_CONF, "utf8");
  // Each upstream block's servers become the given hosts, with that block's own parameters.
  const hosts = upstreams.map((origin) => new URL(origin).host);
  const servers = (parameters: string) => hosts.map((host) => `    server ${host} ${parameters};\n`).join("");
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((kind) => `${kind}_temp_path ${dir}/tmp;`)
    .join(" ");
  const config = shipped
    .replace(/^(?:\s*server \S+:3000 (.*);\n)+/gm, (_block, parameters: string) => servers(parameters))
    .replaceAll("/var/lib/prevly/page-views", pageViews)
    .replace(/listen 80;/, `listen 127.0.0.1:${port};`)
    .replace(/^http \{$/m, `http {\n  ${temp}`)
    .replace(/proxy_cache_path \S+/, `proxy_cache_path ${dir}/page-cache`)
    .replace(/alias \/usr\/share\/nginx\/balancer-pages\//, `alias ${balancerPages}/`);
  const replaced = [String(port), `${dir}/page-cache`, balancerPages, `${pageViews}/$view_second.log`];
  if (/:3000\b/.test(config) || !replaced.every((part) => config.includes(part)))
    throw new Error("deploy/nginx.conf changed shape");
  writeFileSync(join(dir, "nginx.conf"), config);
  const child = spawn(
    nginx,
    ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;`],
    { stdio: "ignore" },
  );
  await waitForPort(port);
  return {
    origin: `http://127.0.0.1:${port}`,
    cachedFiles: () =>
      readdirSync(join(dir, "page-cache"), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
