/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/.*"],
  serverModuleFormat: "esm",
  // zod and every *.server.ts module stay on the server; the browser bundle
  // never sees them (Remix strips loaders/actions and *.server imports).
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    // Single Fetch streams loader data through Suspense, which the shared,
    // pre-compressed render of the landing page (entry.server.tsx) cannot hold.
    v3_singleFetch: false,
  },
};
