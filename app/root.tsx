import type { LinksFunction } from "@remix-run/node";
import { isRouteErrorResponse, Links, LiveReload, Meta, Outlet, useMatches, useRouteError } from "@remix-run/react";
import { useContext, type ReactNode } from "react";
import { UNSAFE_DataRouterStateContext } from "react-router-dom";
import { DeferredBoot, ScriptsRunMark } from "~/components/deferred-boot";
import { InlineStylesheet } from "~/components/inline-stylesheet";
import { content } from "~/content";

export const links: LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "apple-touch-icon", href: content.meta.touchIcon.path },
];

export function Layout({ children }: { children: ReactNode }) {
  return (
    <html lang="pt-BR">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content={content.meta.themeColor} />
        <DocumentTitle />
        <Meta />
        <InlineStylesheet />
        <ScriptsRunMark />
        <Links />
      </head>
      <body className="bg-white font-sans text-ink-900 antialiased">
        {children}
        <DeferredBoot />
        <LiveReload />
      </body>
    </html>
  );
}

/**
 * The leaf route's `handle.title`, led by the notice of its form result: after a post without JavaScript (or before the
 * scripts arrive) the new page has no toast, and the title is the first thing a screen reader reads. Here and not in
 * `meta`, which is never given the action's data.
 */
function DocumentTitle() {
  const matches = useMatches();
  const actionData = useContext(UNSAFE_DataRouterStateContext)?.actionData;
  const leaf = matches[matches.length - 1];
  const title = (leaf?.handle as { title?: string } | undefined)?.title;
  const notice = (leaf && (actionData?.[leaf.id] as { notice?: { title: string } } | undefined))?.notice;
  if (!title) return null;
  return <title>{notice ? content.meta.resultTitle(notice.title, title) : title}</title>;
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (
    <main className="mx-auto flex min-h-screen max-w-xl flex-col items-center justify-center gap-4 px-6 text-center">
      <h1 className="text-2xl font-bold">{content.error.title}</h1>
      <p className="text-ink-700">{content.error.description(status)}</p>
      <a className="font-bold text-brand-700 underline" href="/">
        {content.error.link}
      </a>
    </main>
  );
}
