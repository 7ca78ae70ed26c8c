import { UNSAFE_RemixContext, useMatches } from "@remix-run/react";
import { useContext, useState } from "react";
import { CAMPAIGN_PARAMS, FORM_REACHED_PATH, REFERRER_FIELD } from "~/insight/paths";

/**
 * What starts the page's scripts, named by the leaf route's `handle.boot`: the visitor comes within `margin` of the
 * element `near`, focuses something in it, or follows a link to `#link` (which also puts the cursor in `field`).
 */
export type BootTrigger = { near: string; margin: string; link: string; field: string };

/** The modules Remix's own boot imports (decision 018): preloaded together, then the routes, then the client entry. */
type BootModules = {
  preload: string[];
  runtime: string | null;
  routes: Array<[id: string, url: string]>;
  entry: string;
};

/**
 * How long the framework's modules may take to arrive once the boot starts before the form falls back to working as
 * without JavaScript: a file that fails (404, 500, invalid JavaScript, a network error, an older build's hashes)
 * falls back at once; one that never arrives, after this.
 */
export const BOOT_PATIENCE_MS = 10_000;

/** `<html data-boot>`: `fallback` once the boot gave up; entry.client.tsx hydrates only without it, and marks `hydrating`. */
export const BOOT_STATE = "boot";

/** The one count the boot sends as it starts (docs/insight.md): where, the page's campaign parameters, the referrer's field. */
type Beacon = { path: string; params: readonly string[]; referrer: string };
const FORM_REACHED: Beacon = { path: FORM_REACHED_PATH, params: CAMPAIGN_PARAMS, referrer: REFERRER_FIELD };

/**
 * The page as it is without JavaScript, once its scripts cannot run: the `js-only` parts hidden, the form's
 * `<noscript>` content (the question) put in place, a plain post; what the visitor typed stays. Put in both of the
 * page's scripts, and written without `?.` and `??`: the one in <head> must run where the boot's cannot be parsed.
 */
function showWithoutScripts(html: HTMLElement, form: HTMLElement, state: string) {
  if (html.dataset[state]) return; // hydrating, or fallen back already
  html.dataset[state] = "fallback";
  const cursorHidden = document.activeElement && document.activeElement.closest(".js-only");
  html.classList.remove("js");
  for (const noscript of form.querySelectorAll("noscript"))
    noscript.insertAdjacentHTML("afterend", noscript.textContent || "");
  // The cursor was in a part that hides now (the captcha's place, after its refusal): it goes where the page without
  // JavaScript puts it, the first field given `autofocus` that stays shown (the question, refused in its stead).
  if (!cursorHidden) return;
  for (const field of form.querySelectorAll<HTMLElement>("[autofocus]"))
    if (!field.closest(".js-only")) return field.focus();
}

/**
 * Runs in the page as a plain inline script, before and without the framework. It does what Remix's inline module
 * does (routes into `window.__remixRouteModules`, then `entry.client`), only once the trigger comes. When that fails,
 * the page becomes what it is without JavaScript (`withoutScripts`).
 */
function bootWhenNear(
  trigger: BootTrigger,
  modules: BootModules,
  patienceMs: number,
  state: string,
  beacon: Beacon,
  withoutScripts: typeof showWithoutScripts,
) {
  const html = document.documentElement;
  // Also here: a policy may block the mark in <head> and let this script run.
  html.classList.add("js");
  const target = document.getElementById(trigger.near);
  if (!target) return;
  const fallBack = () => withoutScripts(html, target, state);
  let booted = false;
  const boot = () => {
    if (booted) return;
    booted = true;
    observer.disconnect();
    setTimeout(fallBack, patienceMs);
    for (const href of modules.preload) {
      const link = document.createElement("link");
      link.rel = "modulepreload";
      link.href = href;
      document.head.append(link);
    }
    (modules.runtime ? import(modules.runtime) : Promise.resolve())
      .then(() => Promise.all(modules.routes.map(([, url]) => import(url))))
      .then((loaded) => {
        (window as unknown as { __remixRouteModules: object }).__remixRouteModules = Object.fromEntries(
          modules.routes.map(([id], index) => [id, loaded[index]]),
        );
        return html.dataset[state] ? undefined : import(modules.entry);
      })
      .catch(fallBack);
    // Counted, not identified: the campaign in the page's address and the referring site's host, nothing else.
    const address = new URLSearchParams(location.search);
    const told = new URLSearchParams();
    for (const name of beacon.params) {
      const value = address.get(name);
      if (value) told.set(name, value);
    }
    if (document.referrer) told.set(beacon.referrer, new URL(document.referrer).hostname);
    navigator.sendBeacon(beacon.path, told);
  };
  const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && boot(), {
    rootMargin: trigger.margin,
  });
  observer.observe(target);
  target.addEventListener("focusin", boot);
  // Following the link puts the cursor in the field. The page goes to the fragment itself: Firefox does so after the
  // click's own tasks and takes the focus from the page as it goes, whenever the focus was set.
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element && event.target.closest(`a[href="#${trigger.link}"]`);
    const plain = event.button === 0 && !(event.ctrlKey || event.metaKey || event.shiftKey || event.altKey);
    if (!link || !plain || event.defaultPrevented) return;
    event.preventDefault();
    if (location.hash !== `#${trigger.link}`) history.pushState(null, "", `#${trigger.link}`);
    document.getElementById(trigger.link)?.scrollIntoView();
    document.getElementById(trigger.field)?.focus({ preventScroll: true });
  });
}

/** JSON that cannot close the script it sits in. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

const bootTrigger = (matches: ReturnType<typeof useMatches>) =>
  (matches[matches.length - 1]?.handle as { boot?: BootTrigger } | undefined)?.boot;

/**
 * In <head>, on a page with a boot: scripts run here, so what only they make work (`js-only`) is shown from the first
 * paint and hydration moves nothing. Set by the boot at the end of <body>, a paint before it showed them hidden, and
 * the browser then dropped an `autofocus` inside them (the captcha's place after a post answered before the scripts).
 * When the boot's own script did not run (a policy that blocks it, a browser that cannot parse it), nothing would ever
 * replace the captcha's "Carregando…": once the document is parsed, the form is shown as without JavaScript.
 */
function markScriptsRun(formId: string, state: string, withoutScripts: typeof showWithoutScripts) {
  const html = document.documentElement;
  html.classList.add("js");
  document.addEventListener("DOMContentLoaded", () => {
    const form = document.getElementById(formId);
    if (form && !("__remixContext" in window)) withoutScripts(html, form, state);
  });
}

export function ScriptsRunMark() {
  const trigger = bootTrigger(useMatches());
  if (!trigger) return null;
  const script = `(${markScriptsRun.toString()})(${scriptJson(trigger.near)}, "${BOOT_STATE}", ${showWithoutScripts.toString()});`;
  // The browser's build writes these functions otherwise: the server's text is the one that ran.
  return <script suppressHydrationWarning dangerouslySetInnerHTML={{ __html: script }} />;
}

/**
 * Stands in for Remix's `<Scripts/>` (decision 018): the same `window.__remixContext` and `window.__remixManifest`,
 * but no modulepreload and no module script; `bootWhenNear` fetches them when the visitor needs them. A page whose
 * route names no trigger gets no script at all. Rendered once by the server; the browser keeps those elements as they
 * are.
 */
export function DeferredBoot() {
  const remix = useContext(UNSAFE_RemixContext);
  const matches = useMatches();
  const trigger = bootTrigger(matches);
  const [script] = useState(() => {
    if (!trigger || !remix?.serverHandoffString) return "";
    const { manifest } = remix;
    const routes = matches.map(({ id }) => manifest.routes[id]!);
    const modules: BootModules = {
      preload: [
        ...new Set([
          manifest.entry.module,
          ...manifest.entry.imports,
          ...routes.flatMap((route) => [...(route.imports ?? []), route.module]),
        ]),
      ],
      runtime: manifest.hmr?.runtime ?? null,
      routes: routes.map((route) => [route.id, route.module]),
      entry: manifest.entry.module,
    };
    const partialManifest = { ...manifest, routes: Object.fromEntries(routes.map((route) => [route.id, route])) };
    return [
      `window.__remixContext = ${remix.serverHandoffString};`,
      `window.__remixManifest = ${scriptJson(partialManifest)};`,
      `(${bootWhenNear.toString()})(${scriptJson(trigger)}, ${scriptJson(modules)}, ${BOOT_PATIENCE_MS}, "${BOOT_STATE}", ${scriptJson(FORM_REACHED)}, ${showWithoutScripts.toString()});`,
    ].join("\n");
  });
  if (!trigger) return null;
  return <script suppressHydrationWarning dangerouslySetInnerHTML={{ __html: script }} />;
}
