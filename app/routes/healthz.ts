import { setSecurityHeaders } from "~/utils/security-headers.server";

/** For containers and load balancers: answers without rendering anything. */
export function loader() {
  const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  setSecurityHeaders(headers, { https: false });
  return new Response("ok", { headers });
}
