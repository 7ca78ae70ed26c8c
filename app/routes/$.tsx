import type { MetaFunction } from "@remix-run/node";
import { content } from "~/content";

/** The status alone (entry.server.tsx logs the path). A plain Response: `json` would cost the page a script. */
export const loader = () => new Response(null, { status: 404 });

/** root.tsx writes the title; the page boots no framework (no `boot` here), so its one script is the one below. */
export const handle = { title: content.notFound.metaTitle };

export const meta: MetaFunction<typeof loader> = () => [{ name: "robots", content: "noindex" }];

/** The spec wants the unknown path in the browser's console: a few bytes of plain script, without the framework. */
const LOG_UNKNOWN_PATH = `console.error("404 Error: User attempted to access non-existent route:", location.pathname);`;

export default function NotFound() {
  return (
    <main className="flex min-h-screen items-center justify-center bg-brand-50 px-6">
      <div className="text-center" lang="en">
        <p className="text-6xl font-bold text-brand-700">404</p>
        <h1 className="mt-4 text-2xl font-bold text-ink-900">{content.notFound.title}</h1>
        <a
          href="/"
          className="mt-6 inline-block rounded-lg bg-brand-700 px-5 py-3 font-bold text-white hover:bg-brand-800"
        >
          {content.notFound.link}
        </a>
      </div>
      <script dangerouslySetInnerHTML={{ __html: LOG_UNKNOWN_PATH }} />
    </main>
  );
}
