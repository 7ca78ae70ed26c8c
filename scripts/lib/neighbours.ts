/**
 * A bot and people behind one carrier address, through the shipped nginx to two instances in queued mode on one
 * redis-server: the bot posts forged captcha tokens at BOT_PER_SECOND while VISITORS genuine visitors arrive one every
 * VISITOR_INTERVAL_MS, each pressing again once, PRESS_AGAIN_MS after a refusal. With JavaScript they read the app's
 * JSON answers; without, the page that came back (the app's, or nginx's own).
 */
import { startApp } from "../../tests/harness/app-server";
import { startNginxBalancer, startRedis } from "../../tests/harness/real-servers";
import { postSignup, visitorFields } from "../../tests/harness/signup-client";
import { StandIn } from "../../tests/harness/stand-in";

const BOT_PER_SECOND = 50;
const VISITORS = 20;
const VISITOR_INTERVAL_MS = 500;
const PRESS_AGAIN_MS = 2_000;
const SECRET = "neighbours-bench-secret-0123456789ab";
/** The one address they all share: nginx keys its limits on the connection's. */
const CARRIER_ADDRESS = "127.0.0.2";

type NeighboursFigures = {
  firstPress: number;
  secondPress: number;
  refusedTwice: number;
  /** What the refused presses read: the app's notice, or "nginx page". */
  refusals: Record<string, number>;
  botPosts: number;
  siteverifyCalls: number;
};

export async function neighbours({ javascript }: { javascript: boolean }): Promise<NeighboursFigures> {
  const standIn = new StandIn();
  await standIn.start();
  standIn.siteverify = { success: true, genuinePrefix: "P1_genuine" };
  const redis = await startRedis();
  const env = {
    SIGNUP_SECRET: SECRET,
    ...standIn.captchaSettings,
    REDIS_URL: redis.url,
    RELAY_MODE: "queued",
    TRUST_PROXY: "1",
  };
  const instances = [await startApp(env), await startApp(env)];
  const balancer = await startNginxBalancer(instances.map((app) => app.origin));
  const refusals: Record<string, number> = {};
  let botPosts = 0;
  let running = true;

  const send = async (email: string, hcaptchaToken: string) => {
    const response = await postSignup(
      balancer.origin,
      { ...visitorFields(SECRET), email, hcaptchaToken },
      { data: javascript, from: CARRIER_ADDRESS },
    );
    const text = await response.text();
    if (response.status === 200) return "ok";
    const notice = javascript
      ? (/"title":"([^"]+)"/.exec(text)?.[1] ?? "nginx's page")
      : (/role="alert"[^>]*><p[^>]*>([^<]+)/.exec(text)?.[1] ?? "nginx's page");
    refusals[notice] = (refusals[notice] ?? 0) + 1;
    return "refused";
  };

  const bot = (async () => {
    while (running) {
      const index = ++botPosts;
      void send(`bot${index}@exemplo.com`, `forged-${index}`).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 1000 / BOT_PER_SECOND));
    }
  })();

  try {
    const presses = await Promise.all(
      Array.from({ length: VISITORS }, async (_, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * VISITOR_INTERVAL_MS));
        const email = `vizinho${index}@exemplo.com.br`;
        if ((await send(email, `P1_genuine-${index}`)) === "ok") return 1;
        await new Promise((resolve) => setTimeout(resolve, PRESS_AGAIN_MS));
        return (await send(email, `P1_genuine-${index}-again`)) === "ok" ? 2 : 0;
      }),
    );
    return {
      firstPress: presses.filter((press) => press === 1).length,
      secondPress: presses.filter((press) => press === 2).length,
      refusedTwice: presses.filter((press) => press === 0).length,
      refusals,
      botPosts,
      siteverifyCalls: standIn.received.siteverify.length,
    };
  } finally {
    running = false;
    await bot;
    await balancer.stop();
    for (const app of instances) await app.stop();
    await redis.stop();
    await standIn.stop();
  }
}
