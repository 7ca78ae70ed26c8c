import { unreadiness } from "~/services.server";
import { setSecurityHeaders } from "~/server/security-headers.server";

/**
 * Readiness, for load balancers and orchestrators: 503 while this instance could not take sign-ups as promised
 * (`unreadiness`). /healthz stays liveness: a Redis outage must not get every instance restarted.
 */
export async function loader() {
  const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  setSecurityHeaders(headers, { https: false });
  const why = await unreadiness();
  return why ? new Response(`not ready: ${why}`, { status: 503, headers }) : new Response("ready", { headers });
}
