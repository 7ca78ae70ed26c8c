import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { content } from "~/content";
import { replicasOnline } from "~/delivery/redis-durability.server";
import type { RunningApp } from "../harness/app-server";
import { GROUP_NAME, startRedisGroup, type RedisGroup } from "../harness/redis-group";
import { signUp, type SignupAnswer } from "../harness/signup-client";
import { answers, until } from "../harness/wait";
import { builtServerSuite, filledForm, newClient } from "./suite";

/**
 * Queued mode on a Sentinel group with REDIS_MIN_REPLICAS=1: a sign-up is answered 'Cadastro realizado!' only once a
 * replica holds it, so losing the primary's machine loses none, and the instances follow the promoted replica without
 * a restart. Without replicas configured the rest of the server lane runs as before (no WAIT). The loss benchmark
 * (500 sign-ups, three runs): `npm run test:load -- --failover`.
 */

let group: RedisGroup;
beforeAll(async () => {
  group = await startRedisGroup(3);
}, 60_000);
afterAll(async () => {
  await group?.stop();
});
const { standIn, start, serverForAll } = builtServerSuite((standIn) => ({
  WEBHOOK_URL: standIn.webhookUrl,
  REDIS_URL: group.nodes[0]!.url,
  REDIS_SENTINELS: group.sentinels,
  REDIS_SENTINEL_NAME: GROUP_NAME,
  REDIS_MIN_REPLICAS: "1",
  RELAY_MODE: "queued",
  RELAY_ATTEMPT_SECONDS: "2",
  TRUST_PROXY: "1",
}));
const instances = [serverForAll(), serverForAll()];
const apps = () => instances.map((app) => app());

const { success, storeUnavailable } = content.messages;
/** A press of the form by a visitor of an address of its own, with a fresh captcha token. */
const press = (app: RunningApp, email: string) =>
  signUp(app.origin, filledForm(email, `P1_${randomUUID()}`), { client: newClient() });

/** Acknowledged, or refused in pt-BR with the e-mail kept: a visitor never sees anything else. */
function acknowledged({ status, result }: SignupAnswer, email: string): boolean {
  if (status === 200) expect(result.notice.title).toBe(success.title);
  else
    expect({ status, title: result.notice.title, email: result.email }).toEqual({
      status: 503,
      title: storeUnavailable.title,
      email,
    });
  return status === 200;
}

/** Every acknowledged address reached the webhook, all of each one's attempts under one Idempotency-Key. */
async function expectDelivered(emails: string[]): Promise<void> {
  await until(() => emails.every((email) => standIn.deliveredEmails().includes(email)), {
    what: `${emails.length} acknowledged sign-ups delivered`,
    // A bound for a loaded machine, not a speed: retries that failed while the primary was away wait their backoff.
    timeoutMs: 40_000,
  });
  for (const email of emails) {
    const hits = standIn.received.webhook.filter((hit) => (hit.body as { email: string }).email === email);
    expect(new Set(hits.map((hit) => hit.headers["idempotency-key"])).size).toBe(1);
  }
}

/** The remote ports of a process's established TCP connections, from Linux's /proc. */
function connectedPorts(pid: number): number[] {
  const socket = (fd: string) =>
    readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: "utf8" }).match(/^socket:\[(\d+)\]$/)?.[1];
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return socket(fd);
      } catch {
        return undefined;
      }
    }),
  );
  return ["tcp", "tcp6"]
    .flatMap((file) => readFileSync(`/proc/${pid}/net/${file}`, "utf8").trim().split("\n").slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === "01" && inodes.has(fields[9]))
    .map((fields) => parseInt(fields[2]!.split(":")[1]!, 16));
}

describe("a Sentinel group with a replica required", () => {
  it("a REDIS_SENTINEL_NAME the Sentinels do not know stops start-up with one line naming them (unreachable: unit/durable-stores)", async () => {
    const refusal = await start({ REDIS_SENTINEL_NAME: "outro" }).catch((error: Error) => error.message);
    const each = group.sentinels.split(",").map((sentinel) => `${sentinel} knows no such primary`);
    expect(refusal).toContain(
      `Invalid configuration: no Sentinel of REDIS_SENTINELS names a primary REDIS_SENTINEL_NAME=outro (${each.join("; ")})`,
    );
  });

  it("replicas that do not confirm, or are gone: 'Cadastro indisponível', /readyz 503; once one is back, the same press is accepted", async () => {
    const [app] = apps() as [RunningApp];
    const email = "replica1.1@exemplo.com.br";
    const replicas = group.nodes.slice(1);
    // Frozen, they are still listed online: the press waits for WAIT, which they never answer.
    for (const replica of replicas) replica.freeze();
    try {
      // Four visitors pressing on: a blocked WAIT holds back its connection, and the ledger's must not wait behind it.
      const visitor = async (n: number) => {
        for (const address of [1, 2, 3].map((m) => `replica${n}.${m}@exemplo.com.br`))
          expect(acknowledged(await press(app, address), address)).toBe(false);
      };
      await Promise.all([1, 2, 3, 4].map(visitor));
      const logged = /"store-unavailable","detail":"([^"]*)","status":503,"durationMs":([\d.]+)/g;
      const refusals = () => [...app.output().matchAll(logged)];
      await until(() => refusals().length === 12, { what: "12 refusals logged" });
      // Each within two WAITs of 500 ms (the one its add queued behind, then its own), with a loaded machine's slack.
      const reasons = refusals().map(([, reason, ms]) => (Number(ms) < 1_500 ? reason : `${reason}, after ${ms} ms`));
      expect(reasons).toEqual(Array(12).fill("queue: 0 of 1 replicas confirmed within 500 ms"));
      await Promise.all(replicas.map((replica) => replica.kill()));
      await until(() => answers(`${app.origin}/readyz`, 503), { what: "/readyz 503" });
      expect(await (await fetch(`${app.origin}/readyz`)).text()).toContain("0 replica(s) online");
      expect(acknowledged(await press(app, email), email)).toBe(false);
    } finally {
      // Killed first: a replica still frozen (a failed expectation above) would hold its port.
      await Promise.all(
        replicas.map(async (replica) => {
          await replica.kill();
          await replica.restart();
        }),
      );
    }
    await until(async () => acknowledged(await press(app, email), email), {
      what: "the press accepted once a replica is back",
      intervalMs: 250,
    });
    expect(app.output().match(/"event":"redis-replicas"/g)).toHaveLength(2);
    await expectDelivered([email]);
  });

  // Lost, its connections close; frozen, they stay open and answer nothing. Three replicas: one is left after both.
  // Lost with the Sentinel the apps ask first hung too: one of three may fail at any time.
  it.each(["lost", "frozen"] as const)(
    "the primary %s mid-traffic: every acknowledged sign-up reaches the webhook, and sign-ups resume",
    async (fault) => {
      // Nothing is delivered before the fault: every acknowledged sign-up is then only in Redis.
      standIn.webhook = { status: 503, text: "fora do ar" };
      const accepted: string[] = [];
      const primaryPort = await group.primaryPort();
      const primary = group.nodes.find((node) => node.port === primaryPort)!;
      // WAIT is not consensus: a replica still syncing when the primary goes may be promoted without the last sign-ups.
      const replicas = group.nodes.length - (fault === "lost" ? 1 : 2); // a node fewer after each failover
      const inSync = async () => replicasOnline(await primary.cli("INFO", "replication")) === replicas;
      await until(inSync, { what: `${replicas} replicas in sync` });
      let faultAt = Infinity;
      let resumedAfterMs: number | null = null;
      let sent = 0;
      let stopped = false;
      // Four visitors at a time, alternating instances, until sign-ups have resumed after the fault.
      const visitor = async () => {
        while (!stopped) {
          const email = `${fault}${++sent}@exemplo.com.br`;
          const sentAt = Date.now();
          if (!acknowledged(await press(apps()[sent % 2]!, email), email)) continue;
          accepted.push(email);
          if (sentAt > faultAt) resumedAfterMs ??= Date.now() - faultAt;
        }
      };
      const traffic = Promise.all(Array.from({ length: 4 }, visitor));
      const thawSentinel = fault === "lost" ? group.freezeFirstSentinel() : () => undefined;
      // Frozen: compose's 5 s before the Sentinels act, time for BullMQ to make its blocking connection again meanwhile.
      if (fault === "frozen") await group.setDownAfter(5_000);
      try {
        await until(() => accepted.length >= 12, { what: "12 sign-ups acknowledged" });
        faultAt = Date.now();
        // Lost: SIGKILL and its data folder deleted, the machine is gone. Frozen: SIGSTOP.
        await (fault === "lost" ? primary.stop() : primary.freeze());
        standIn.webhook = { status: 200, text: "ok" };
        await until(() => resumedAfterMs !== null && accepted.length >= 20, {
          what: "sign-ups accepted again after the failover",
          timeoutMs: 20_000,
        });
      } finally {
        stopped = true;
        thawSentinel();
        await traffic;
      }
      console.log(`first sign-up accepted ${resumedAfterMs} ms after the primary was ${fault}`);
      // Each instance, once it has followed (the one that took no sign-up yet may still be reconnecting).
      const followed = new RegExp(
        `"event":"redis","state":"ready","primary":"[^"]+","previous":"[^"]+:${primary.port}"`,
      );
      await Promise.all(apps().map((app) => app.printed(followed)));
      // Every connection followed, BullMQ's blocking ones too, or that instance delivers nothing.
      await until(() => apps().every((app) => !connectedPorts(app.process.pid!).includes(primary.port)), {
        what: "no connection left on the old primary",
      });
      await expectDelivered(accepted);
      primary.thaw();
    },
  );
});
