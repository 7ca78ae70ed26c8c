import pMap from "p-map";
import { postSignup, visitorFields } from "../../tests/harness/signup-client";
import { percentile, RIG_SECRET } from "./processes";

type SignupRun = {
  total: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
};

/**
 * Posts `total` distinct, valid sign-ups to the app's form action, `concurrency`
 * at a time, as browsers with a solved captcha would.
 */
export async function postSignups(origin: string, total: number, concurrency: number, tag: string): Promise<SignupRun> {
  const botTrap = visitorFields(RIG_SECRET);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const started = performance.now();
  await pMap(
    Array.from({ length: total }),
    async (_, index) => {
      const sent = performance.now();
      const response = await postSignup(
        origin,
        { ...botTrap, email: `carga-${tag}-${index}@exemplo.com.br`, hcaptchaToken: `P1_load-${tag}-${index}` },
        { userAgent: "load-test", data: true },
      );
      await response.arrayBuffer();
      latencies.push(performance.now() - sent);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    },
    { concurrency },
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    total,
    concurrency,
    seconds,
    perSecond: total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses,
  };
}
