import { createDelivery } from "~/delivery/delivery.server";
import { warnIfRedisEvicts } from "~/delivery/redis-durability.server";
import { Insight } from "~/insight/insight.server";
import { FORM_REACHED_PATH } from "~/insight/paths";
import { countLoggedViews } from "~/insight/view-log.server";
import { Signup } from "~/signup/pipeline.server";
import { memoryState } from "~/state/memory-state.server";
import { redisState } from "~/state/redis-state.server";
import type { IncomingMessage, ServerResponse } from "node:http";
import { PageCache } from "~/page/page-cache.server";
import { isHttps, type RequestFields } from "~/server/client-address.server";
import { installServerPlumbing } from "~/server/installer.server";
import { guardProcess, oncePerProcess } from "~/server/process.server";
import { Metrics } from "~/server/metrics.server";
import {
  exitOnConfigError,
  loadSettings,
  makeSignupsFolder,
  orExitOnConfigError,
  withSigningSecret,
} from "~/server/settings.server";

/**
 * The server's services, built once from the validated settings when the build is imported (before
 * remix-serve listens): the shared state (memory, or Redis with REDIS_URL), where sign-ups go (the webhook
 * now or through the queue, or the local file), the pipeline and the metrics.
 */
export const settings = loadSettings();

const metrics = new Metrics();
/** The campaign counts (docs/insight.md), shown in /metrics. */
export const insight = new Insight(metrics.registry);
/**
 * Answered to probes, scrapes and the boot's beacon, not to visitors: a readiness probe's 503 is no visitor's error,
 * and a beacon is no answer a visitor reads.
 */
const NOT_VISITORS = new Set(["/healthz", "/readyz", "/metrics", FORM_REACHED_PATH]);
/** The shared render (decision 009), answered by Remix's document request and, once fresh, before Remix. */
export const pages = new PageCache();

/** The page's fresh render, answered as Remix would (same status, headers and bytes) and counted as a view. */
function answerThePage(request: IncomingMessage, response: ServerResponse): boolean {
  const fields = requestFields(request);
  const { get } = fields.headers;
  const ask = { ifNoneMatch: get("if-none-match"), acceptEncoding: get("accept-encoding") };
  const answer = pages.answerEarly("/", { ...ask, https: isHttps(fields, settings.TRUST_PROXY) });
  if (!answer) return false;
  insight.pageAnswered(fields);
  response.writeHead(answer.status, answer.headerLines);
  response.end(answer.body);
  return true;
}

/** What the counts and the HTTPS check read of a Node request, without building a fetch Request. */
function requestFields(request: IncomingMessage): RequestFields {
  const get = (name: string) => {
    const value = request.headers[name];
    return (Array.isArray(value) ? value.join(", ") : value) || null;
  };
  const has = (name: string) => name in request.headers;
  return { method: request.method ?? "", url: `http://site${request.url}`, headers: { get, has } };
}

const edge = {
  publicOrigin: settings.PUBLIC_URL,
  earlyAnswers: new Map([
    ["/", { methods: ["GET", "HEAD"], answer: answerThePage }],
    ["/metrics", { methods: ["GET"], answer: metrics.handler(settings.METRICS_TOKEN) }],
    [FORM_REACHED_PATH, { methods: ["POST"], answer: insight.formReachedAnswer }],
  ]),
  answered: (status: number, path: string) => NOT_VISITORS.has(path) || metrics.answered(status),
};
oncePerProcess(() => {
  guardProcess();
  installServerPlumbing(edge);
  if (settings.PAGE_VIEWS_FOLDER) countLoggedViews(settings.PAGE_VIEWS_FOLDER, insight.viewLogged);
});

const sentinel = settings.REDIS_SENTINELS && {
  sentinels: settings.REDIS_SENTINELS,
  name: settings.REDIS_SENTINEL_NAME!,
  sentinelUsername: settings.REDIS_SENTINEL_USERNAME,
  sentinelPassword: settings.REDIS_SENTINEL_PASSWORD,
};
const redis = settings.REDIS_URL
  ? redisState({ url: settings.REDIS_URL, namespace: settings.SIGNUP_SOURCE, sentinel })
  : null;
/** How long start-up waits for Redis before it listens anyway: a Redis still away is checked once it answers. */
const REDIS_START_WAIT_MS = 5_000;
// Top-level awaits: remix-serve imports the build before it listens, so these run before the first visitor.
if (redis) {
  const waited = new Promise((resolve) => setTimeout(resolve, REDIS_START_WAIT_MS));
  await Promise.race([redis.database.catch(exitOnConfigError), waited]);
}
await makeSignupsFolder(settings).catch(exitOnConfigError);
const state = redis ?? memoryState();
// A blocked WAIT holds back its connection's other commands, and counts that connection's writes: the queue's own.
const queueRedis = redis && settings.REDIS_MIN_REPLICAS ? redis.connectionOfItsOwn() : redis?.client;
export const delivery = orExitOnConfigError(() => createDelivery(settings, { metrics, redis: queueRedis }));
// Queued mode refuses a Redis that evicts keys; the other modes are warned once Redis first answers.
if (redis && !delivery.queued)
  void redis.database.then(
    () => warnIfRedisEvicts(redis.client),
    () => undefined,
  );

export const signup = orExitOnConfigError(() => new Signup(withSigningSecret(settings), state, delivery, metrics));

/**
 * Why this instance cannot take sign-ups as promised now (Redis unreachable or refusing writes, or evicting keys in
 * queued mode, or the local sign-ups file unwritable), or null: what /readyz answers, and `instance_ready`.
 */
export async function unreadiness(): Promise<string | null> {
  const [sinkOk, storeUnready, refusal] = await Promise.all([delivery.healthy(), state.unready(), delivery.refusal()]);
  return storeUnready ?? refusal ?? (sinkOk ? null : "SIGNUPS_FILE cannot be written");
}
metrics.watchReadiness(unreadiness);
