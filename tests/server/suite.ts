import { afterEach, expect } from "vitest";
import { startApp, type RunningApp, type StartOptions } from "../harness/app-server";
import { visitorFields } from "../harness/signup-client";
import { startNginxBalancer, startRedis, type RunningNginx } from "../harness/real-servers";
import { sharedByTests } from "../harness/shared-by-tests";
import type { StandIn } from "../harness/stand-in";
import { standInPerFile } from "../harness/stand-in-per-file";

/** The SIGNUP_SECRET every server of a suite gets unless a test says otherwise. */
export const SUITE_SECRET = "server-suite-secret-0123456789abcdef";

/** The form as a person fills it in, with a solved captcha: the bot-trap fields of one who took a person's time. */
export const filledForm = (email: string, hcaptchaToken = `P1_${email}`) => ({
  ...visitorFields(SUITE_SECRET),
  email,
  hcaptchaToken,
});

let clients = 0;
/** An address of its own for each visitor (sent as X-Forwarded-For): none spends another's share. */
export const newClient = () => `198.51.${++clients >> 8}.${clients & 255}`;

/**
 * For a test file that starts built servers: one stand-in webhook/siteverify
 * for the file, emptied before each test, and every server and balancer a
 * test started stopped after it. `baseEnv` is what each server gets unless a test says
 * otherwise; `visitor()` gives the bot-trap fields of a visitor who took a
 * person's time over the form.
 */
export function builtServerSuite(baseEnv: (standIn: StandIn) => Record<string, string> = () => ({})) {
  const standIn = standInPerFile();
  const running: Array<RunningApp | RunningNginx> = [];

  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.stop()));
  });

  async function start(env: Record<string, string> = {}, options?: StartOptions): Promise<RunningApp> {
    const app = await startApp({ SIGNUP_SECRET: SUITE_SECRET, ...baseEnv(standIn), ...env }, options);
    running.push(app);
    return app;
  }

  /** The shipped nginx in front of `upstreams` (origins), stopped after the test. */
  async function startBalancer(...args: Parameters<typeof startNginxBalancer>): Promise<RunningNginx> {
    const started = await startNginxBalancer(...args);
    running.push(started);
    return started;
  }

  /**
   * One server for the tests of the enclosing describe (or file) that share its environment, started before them
   * and stopped after: each test then signs up addresses of its own. Call the returned function for it.
   */
  function serverForAll(env: () => Record<string, string> = () => ({})): () => RunningApp {
    return sharedByTests(() => startApp({ SIGNUP_SECRET: SUITE_SECRET, ...baseEnv(standIn), ...env() }));
  }

  return { standIn, start, startBalancer, serverForAll, visitor: () => visitorFields(SUITE_SECRET) };
}

/** What a visitor without JavaScript reads on a page the balancer wrote: its words, and the way back to the form. */
export async function expectBalancerPage(answer: Promise<Response> | Response, status: number, title: string) {
  const response = await answer;
  const html = await response.text();
  expect([response.status, response.headers.get("content-type"), response.headers.get("cache-control")]).toEqual([
    status,
    "text/html; charset=utf-8",
    "no-store",
  ]);
  expect(html).toContain(`<h1>${title}</h1>`);
  expect(html).toContain('<a href="/#cadastro">Voltar ao formulário</a>');
}

/**
 * One redis-server for a test file, emptied before each test as a fresh
 * deployment would find it; call the returned function for the running server.
 */
export const redisPerFile = () =>
  sharedByTests(
    () => startRedis(),
    (redis) => redis.cli("FLUSHALL"),
  );
