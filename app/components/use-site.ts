import { useRouteLoaderData } from "@remix-run/react";
import type { loader as rootLoader } from "~/root";

/** The site's name and contact address, loaded once by the root route. */
export function useSite() {
  const data = useRouteLoaderData<typeof rootLoader>("root");
  return { siteName: data?.siteName ?? "", contactEmail: data?.contactEmail ?? "" };
}
