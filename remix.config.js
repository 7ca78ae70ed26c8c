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
    // Single Fetch and lazy route discovery change the data transport; with
    // three routes they buy nothing yet, so they stay off deliberately.
    v3_singleFetch: false,
    v3_lazyRouteDiscovery: false,
  },
};
