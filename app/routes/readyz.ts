import { delivery, state } from "~/server/services.server";
import { setSecurityHeaders } from "~/server/security-headers.server";

/**
 * Readiness, for load balancers and orchestrators: 503 while this instance could not take sign-ups as promised (Redis
 * unreachable or refusing writes, or evicting keys in queued mode, or the local sign-ups file unwritable). /healthz
 * stays liveness: a Redis outage must not get every instance restarted.
 */
export async function loader() {
  const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  setSecurityHeaders(headers, { https: false });
  const [sinkOk, storeUnready, refusal] = await Promise.all([delivery.healthy(), state.unready(), delivery.refusal()]);
  if (storeUnready) return new Response(`not ready: ${storeUnready}`, { status: 503, headers });
  if (refusal) return new Response(`not ready: ${refusal}`, { status: 503, headers });
  if (!sinkOk) return new Response("not ready: SIGNUPS_FILE cannot be written", { status: 503, headers });
  return new Response("ready", { headers });
}
