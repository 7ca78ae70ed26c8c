import type { EntryContext } from "@remix-run/node";
import { Outlet, RemixServer, Scripts } from "@remix-run/react";
import { createStaticHandler, type StaticHandlerContext } from "@remix-run/router";
import { createElement as h, Fragment } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import config from "../../remix.config.js";
import { DeferredBoot, type BootTrigger } from "~/components/deferred-boot";

/**
 * The upgrade guard of decision 018: the installed @remix-run/react renders its own <Scripts/> beside our
 * <DeferredBoot/> in one page, with the app's future flags, and the boot must import exactly what Remix's inline
 * module imports, hand over the same globals, and leave nothing of that module out.
 */

const TRIGGER: BootTrigger = { near: "signup-form", margin: "400px", link: "cadastro", field: "email" };

const route = (id: string, module: string, extra: object) => ({
  id,
  module,
  hasAction: false,
  hasLoader: false,
  hasClientAction: false,
  hasClientLoader: false,
  hasErrorBoundary: false,
  ...extra,
});

const manifest = {
  version: "test",
  url: "/build/manifest-TEST.js",
  entry: { module: "/build/entry.client-E.js", imports: ["/build/_shared/chunk-A.js", "/build/_shared/chunk-B.js"] },
  routes: {
    root: route("root", "/build/root-R.js", { path: "", imports: ["/build/_shared/chunk-C.js"] }),
    "routes/_index": route("routes/_index", "/build/routes/_index-I.js", {
      parentId: "root",
      index: true,
      hasLoader: true,
      imports: ["/build/_shared/chunk-B.js"],
    }),
    "routes/$": route("routes/$", "/build/routes/$-N.js", { parentId: "root", path: "*", hasLoader: true }),
  },
};

async function renderBoth(withBoot: boolean): Promise<string> {
  const handler = createStaticHandler([
    {
      id: "root",
      path: "",
      children: [
        { id: "routes/_index", index: true, loader: () => ({ greeting: "olá" }) },
        { id: "routes/$", path: "*", loader: () => null },
      ],
    },
  ]);
  const state = (await handler.query(new Request("http://localhost/"))) as StaticHandlerContext;
  const context = {
    manifest,
    routeModules: {
      root: { default: () => h(Fragment, null, h(Outlet), h(Scripts), h(DeferredBoot)) },
      "routes/_index": {
        default: () => h("form", { id: TRIGGER.near }),
        handle: withBoot ? { boot: TRIGGER } : {},
      },
      "routes/$": { default: () => null },
    },
    staticHandlerContext: state,
    serverHandoffString: JSON.stringify({ future: config.future, state: { loaderData: state.loaderData } }),
    future: config.future,
    isSpaMode: false,
    renderMeta: {},
  } as unknown as EntryContext;
  return renderToString(h(RemixServer, { context, url: "http://localhost/" }));
}

/** What Remix's <Scripts/> emits, taken apart statement by statement; `rest` is whatever this reading did not know. */
function readRemixScripts(html: string) {
  const context = /<script>(window\.__remixContext = [\s\S]*?)<\/script>/.exec(html)![1]!;
  let module = /<script type="module" async="">([\s\S]*?)<\/script>/.exec(html)![1]!;
  const take = (pattern: RegExp) => {
    const found = [...module.matchAll(pattern)];
    module = module.replace(pattern, "");
    return found;
  };
  const imports = new Map(
    take(/import \* as (route\d+) from ("[^"]+");/g).map(([, name, url]) => [name!, JSON.parse(url!)]),
  );
  const partialManifest = JSON.parse(take(/window\.__remixManifest = ([\s\S]*?\n});/g)[0]![1]!);
  const routeModules = take(/window\.__remixRouteModules = \{(.*)\};/g)[0]![1]!;
  const routes = [...routeModules.matchAll(/("[^"]+"):(route\d+)/g)].map(([, id, name]) => [
    JSON.parse(id!),
    imports.get(name!),
  ]);
  const entry = JSON.parse(take(/import\(("[^"]+")\);/g)[0]![1]!);
  const preload = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map(([, href]) => href!);
  return { context, partialManifest, routes, entry, preload, rest: module.replace(/[\s;]/g, "") };
}

function readBoot(html: string) {
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, body]) => body!);
  const boot = scripts.find((body) => body.includes("bootWhenNear"));
  if (!boot) return null;
  const [context, manifestLine] = boot.split("\n");
  const [, trigger, modules] = /\)\((\{.*\}), (\{.*\}), \d+, "\w+", \{.*\}, function /.exec(boot)!;
  return {
    context: context!,
    partialManifest: JSON.parse(/^window\.__remixManifest = (.*);$/.exec(manifestLine!)![1]!),
    trigger: JSON.parse(trigger!),
    modules: JSON.parse(modules!) as { preload: string[]; runtime: string | null; routes: string[][]; entry: string },
  };
}

describe("the deferred boot against the installed Remix's <Scripts/>", () => {
  it("hands over the same context and manifest, and imports what Remix's module imports, in its order", async () => {
    const html = await renderBoth(true);
    const remix = readRemixScripts(html);
    const boot = readBoot(html)!;

    expect(remix.rest).toBe("");
    expect(boot.context).toBe(remix.context);
    expect(boot.partialManifest).toEqual(remix.partialManifest);
    expect(boot.modules.routes).toEqual(remix.routes);
    expect(boot.modules.entry).toBe(remix.entry);
    expect(boot.modules.runtime).toBeNull();
    expect(new Set(boot.modules.preload)).toEqual(new Set(remix.preload));
    expect(boot.trigger).toEqual(TRIGGER);
  });

  it("a page whose route names no trigger gets no boot at all", async () => {
    const html = await renderBoth(false);
    expect(readBoot(html)).toBeNull();
  });
});
