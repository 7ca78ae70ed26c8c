/**
 * A Redis primary, its replicas and three Sentinels on loopback, as a production group runs them: the Sentinels
 * notice a lost primary within a second and promote a replica. Debian's redis-server, Sentinel as
 * `redis-server FILE --sentinel` (FILE is Sentinel's own to rewrite).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./app-server";
import { findProgram } from "./programs";
import { redisCli, startRedis, type RunningRedis } from "./real-servers";
import { until, waitForPort } from "./wait";

export const GROUP_NAME = "prevly";
/** How long a node may not answer before a Sentinel holds it down: short, so a test fails over in seconds. */
const DOWN_AFTER_MS = 1_000;

/** A replica that (re)joins is sent the data at once, not after Redis's default 5 s wait for others to join too. */
const SYNC_AT_ONCE = ["--repl-diskless-sync-delay", "0"];

export type RedisGroup = {
  /** The first primary, then each replica. */
  nodes: RunningRedis[];
  /** REDIS_SENTINELS: the three Sentinels' host:port. */
  sentinels: string;
  /** The port of the node every Sentinel names as primary now (one may not have heard of a failover yet). */
  primaryPort: () => Promise<number>;
  /** How long a primary may not answer before the Sentinels hold it down, from now on. */
  setDownAfter: (ms: number) => Promise<void>;
  /** SIGSTOP to the Sentinel the apps ask first (it holds their connections and answers nothing); SIGCONT undoes it. */
  freezeFirstSentinel: () => () => void;
  stop: () => Promise<void>;
};

/** A Sentinel's answer to `args`, one line per word of it. */
const askSentinel = async (port: number, ...args: string[]) => (await redisCli(port, ...args)).split("\n");

/** A primary with `replicas` replicas (persistent, as compose runs them), and three Sentinels that agree on it. */
export async function startRedisGroup(replicas: number): Promise<RedisGroup> {
  const primary = await startRedis({ persistent: true, options: SYNC_AT_ONCE });
  const followers = await Promise.all(
    Array.from({ length: replicas }, () =>
      startRedis({ persistent: true, options: [...SYNC_AT_ONCE, "--replicaof", "127.0.0.1", String(primary.port)] }),
    ),
  );
  const folder = mkdtempSync(join(tmpdir(), "sentinels-"));
  const sentinels: Array<{ port: number; process: ChildProcess }> = [];
  for (let index = 0; index < 3; index++) {
    const port = await freePort();
    const file = join(folder, `sentinel-${index}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${folder}`,
        `sentinel monitor ${GROUP_NAME} 127.0.0.1 ${primary.port} 2`,
        `sentinel down-after-milliseconds ${GROUP_NAME} ${DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${GROUP_NAME} 2000`,
        "",
      ].join("\n"),
    );
    sentinels.push({ port, process: spawn(findProgram("redis-server")!, [file, "--sentinel"], { stdio: "ignore" }) });
    await waitForPort(port);
  }
  // A Sentinel can vote a failover once it knows the others, and promote only a replica it knows.
  await until(
    async () => {
      const known = await Promise.all(
        sentinels.map(async ({ port }) => {
          const [others, nodes] = await Promise.all([
            askSentinel(port, "SENTINEL", "sentinels", GROUP_NAME),
            askSentinel(port, "SENTINEL", "replicas", GROUP_NAME),
          ]);
          const count = (lines: string[]) => lines.filter((line) => line === "name").length;
          return count(others) === 2 && count(nodes) === replicas;
        }),
      );
      return known.every(Boolean);
    },
    { what: "three Sentinels that know each other and every replica", timeoutMs: 15_000, intervalMs: 200 },
  );

  return {
    nodes: [primary, ...followers],
    sentinels: sentinels.map(({ port }) => `127.0.0.1:${port}`).join(","),
    primaryPort: async () => {
      let ports: string[] = [];
      const ask = ({ port }: { port: number }) => askSentinel(port, "SENTINEL", "get-master-addr-by-name", GROUP_NAME);
      const agreed = async () => {
        ports = (await Promise.all(sentinels.map(ask))).map(([, port]) => port!);
        return new Set(ports).size === 1;
      };
      await until(agreed, { what: "the Sentinels naming one primary", intervalMs: 100 });
      return Number(ports[0]);
    },
    setDownAfter: async (ms) => {
      const set = ({ port }: { port: number }) =>
        askSentinel(port, "SENTINEL", "SET", GROUP_NAME, "down-after-milliseconds", String(ms));
      await Promise.all(sentinels.map(set));
    },
    freezeFirstSentinel: () => {
      sentinels[0]!.process.kill("SIGSTOP");
      return () => sentinels[0]!.process.kill("SIGCONT");
    },
    stop: async () => {
      for (const sentinel of sentinels) sentinel.process.kill("SIGKILL");
      await Promise.all([primary, ...followers].map((node) => node.stop()));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
