import type { MetaFunction } from "@remix-run/node";
import { useLocation } from "@remix-run/react";
import { useEffect } from "react";
import { content } from "~/content";

/** The status alone (entry.server.tsx logs the path). A plain Response: `json` would cost the page a script. */
export const loader = () => new Response(null, { status: 404 });

export const meta: MetaFunction<typeof loader> = () => [
  { title: content.notFound.metaTitle },
  { name: "robots", content: "noindex" },
];

export default function NotFound() {
  const { pathname } = useLocation();
  useEffect(() => {
    console.error("404 Error: User attempted to access non-existent route:", pathname);
  }, [pathname]);

  return (
    <main className="flex min-h-screen items-center justify-center bg-brand-50 px-6">
      <div className="text-center" lang="en">
        <p className="text-6xl font-extrabold text-brand-700">404</p>
        <h1 className="mt-4 text-2xl font-bold text-ink-900">{content.notFound.title}</h1>
        <a
          href="/"
          className="mt-6 inline-block rounded-lg bg-brand-700 px-5 py-3 font-semibold text-white hover:bg-brand-800"
        >
          {content.notFound.link}
        </a>
      </div>
    </main>
  );
}
