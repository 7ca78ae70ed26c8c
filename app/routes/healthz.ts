import { delivery } from "~/services.server";
import { setSecurityHeaders } from "~/server/security-headers.server";

/**
 * For containers and load balancers: answers without rendering anything. 503 when sign-ups could not be taken (the
 * local sign-ups file became unwritable or its disk is full), so the orchestrator notices before visitors do.
 */
export async function loader() {
  const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  setSecurityHeaders(headers, { https: false });
  if (!(await delivery.healthy()))
    return new Response("unavailable: SIGNUPS_FILE cannot be written", { status: 503, headers });
  return new Response("ok", { headers });
}
