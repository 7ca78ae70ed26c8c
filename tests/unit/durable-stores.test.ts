import { ReplyError, type Redis } from "ioredis";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { RedisDurability, replicasOnline, warnIfRedisEvicts } from "~/delivery/redis-durability.server";
import { SignupSink } from "~/delivery/sink.server";
import { redisState } from "~/state/redis-state.server";
import { freePort } from "../harness/app-server";

/**
 * Where sign-ups are kept must keep them: a SIGNUPS_FILE that is no file, and a Redis that evicts or persists nothing,
 * are refused or warned of. A Redis that evicts keys stopping queued mode's start-up: server/queued-delivery.
 */

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * A Redis client whose CONFIG GET answers from `settings` (changed as the test goes), or refuses CONFIG; until
 * `connected()` it fails each command at once, as a client without an offline queue does before it is ready.
 */
function redisWith(settings: Record<string, string> | "refuses CONFIG", { ready = true } = {}) {
  const handlers = new Map<string, () => void>();
  const client = {
    duplicate: () => client,
    on: (event: string, handler: () => void) => (handlers.set(event, handler), client),
    config: async (_get: "GET", name: string) => {
      if (!ready) throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
      if (settings === "refuses CONFIG") throw new ReplyError("ERR unknown command 'CONFIG'");
      return [name, settings[name]];
    },
  };
  const connected = () => {
    ready = true;
    handlers.get("ready")?.();
  };
  return Object.assign(client as unknown as Redis, { connected });
}

/** The warnings printed while `work` ran. */
async function warningsOf(work: () => Promise<unknown>): Promise<string[]> {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
  await work();
  return warn.mock.calls.map(([line]) => String(line));
}

describe("queued mode's Redis", () => {
  const KEPT = { "maxmemory-policy": "noeviction", appendonly: "yes", save: "" };

  it("one that persists nothing is warned of once however often it is read; one with an append-only log is not", async () => {
    const forgetful = new RedisDurability(redisWith({ ...KEPT, appendonly: "no" }));
    const kept = new RedisDurability(redisWith(KEPT));
    const printed = await warningsOf(async () => {
      for (const now of [0, 1_000, 2_000])
        expect([await forgetful.refusal(now), await kept.refusal(now)]).toEqual([null, null]);
    });
    expect(printed).toEqual([
      '[config] warning: Redis persists nothing (appendonly no, save ""): a restart of Redis loses every undelivered sign-up; turn on appendonly yes (as compose.yaml does) or RDB snapshots',
    ]);
  });

  it("one that refuses CONFIG (as managed services may) is warned of once, and sign-ups are taken", async () => {
    const managed = new RedisDurability(redisWith("refuses CONFIG"));
    const printed = await warningsOf(async () => {
      for (const now of [0, 1_000, 2_000]) expect(await managed.refusal(now)).toBeNull();
    });
    expect(printed).toEqual([
      "[config] warning: Redis refuses CONFIG GET (as some managed services do): check in its settings that maxmemory-policy is noeviction and that it persists its data (AOF or RDB), or queued sign-ups can be lost",
    ]);
  });

  it("one read before its connection is ready is read again the moment it is, not a second later", async () => {
    const redis = redisWith(KEPT, { ready: false });
    const durability = new RedisDurability(redis);
    expect(await durability.refusal(0)).toBe("Redis's maxmemory-policy has not been read yet");
    redis.connected();
    expect(await durability.refusal(1)).toBeNull();
  });

  it("one whose policy is changed to evict keys while running (a failover to a cache) refuses sign-ups, logged once, until it is back", async () => {
    const settings = { ...KEPT };
    const durability = new RedisDurability(redisWith(settings));
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    expect(await durability.refusal(0)).toBeNull();
    settings["maxmemory-policy"] = "volatile-lru";
    expect(await durability.refusal(500)).toBeNull(); // read at most once a second
    const refusal =
      "Invalid configuration: Redis's maxmemory-policy is volatile-lru, so it may evict queued sign-ups; RELAY_MODE=queued needs noeviction (CONFIG SET maxmemory-policy noeviction, and the same in redis.conf)";
    for (const now of [1_000, 2_000]) expect(await durability.refusal(now)).toBe(refusal);
    settings["maxmemory-policy"] = "noeviction";
    expect(await durability.refusal(3_000)).toBeNull();
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)).reason)).toEqual([refusal, undefined]);
  });
});

it("direct mode on a Redis that evicts keys is warned once, naming the setting and the fix; on one that keeps them, not", async () => {
  const printed = await warningsOf(async () => {
    await warnIfRedisEvicts(redisWith({ "maxmemory-policy": "allkeys-lru" }));
    await warnIfRedisEvicts(redisWith({ "maxmemory-policy": "noeviction" }));
  });
  expect(printed).toEqual([
    "[config] warning: Redis's maxmemory-policy is allkeys-lru, so it may evict the record of what was relayed and the limits: a retry may then be relayed twice, an address again within the day; set noeviction (CONFIG SET maxmemory-policy noeviction, and the same in redis.conf)",
  ]);
});

it("a SIGNUPS_FILE that is not a regular file (/dev/null) stops start-up with one line naming it", () => {
  expect(() => new SignupSink("/dev/null")).toThrowError(
    "Invalid configuration: SIGNUPS_FILE is not a regular file (/dev/null); name a file on a disk or volume",
  );
});

it("a replica counts as online while it acknowledges the primary: one frozen for 4 s does not", () => {
  const replica = (index: number, state: string, lag: number) =>
    `slave${index}:ip=10.0.0.${index},port=6379,state=${state},offset=1043,lag=${lag}`;
  const info = (...replicas: string[]) => ["# Replication", "role:master", ...replicas, "master_repl_offset:1043"];
  expect(replicasOnline(info(replica(0, "online", 0), replica(1, "online", 3)).join("\r\n"))).toBe(2);
  expect(replicasOnline(info(replica(0, "online", 4), replica(1, "wait_bgsave", 0)).join("\r\n"))).toBe(0);
});

it("Sentinels that do not answer: /readyz and one log line name them and the primary asked for", async () => {
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  const port = await freePort(); // nothing listens there
  const sentinel = { sentinels: [{ host: "127.0.0.1", port }], name: "prevly" };
  const state = redisState({ url: "redis://127.0.0.1", namespace: "prevly", sentinel });
  onTestFinished(() => state.client.disconnect());
  const why = `no Sentinel of REDIS_SENTINELS names a primary REDIS_SENTINEL_NAME=prevly (127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port})`;
  expect(await state.unready()).toBe(`Redis does not answer: ${why}`);
  await vi.waitFor(() => expect(log.mock.calls.map(([line]) => JSON.parse(String(line)).reason)).toEqual([why]));
});
