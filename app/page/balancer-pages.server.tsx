import { renderToStaticMarkup } from "react-dom/server";
import { content, SIGNUP_SECTION_ID } from "~/content";
import { theme } from "../../tailwind.config";

/** Where deploy/nginx.conf finds them, and what each answers: they are written by `npm run build`. */
export const BALANCER_PAGES_FOLDER = "deploy/balancer-pages";

const { brand, ink } = theme.extend.colors;

/** A few rules of the page's own look, inline: the balancer's page fetches nothing. */
const STYLE = [
  `body{margin:0;font-family:${theme.extend.fontFamily.sans.join(",")};color:${ink[900]};background:${brand[50]}}`,
  "main{max-width:32rem;margin:0 auto;padding:3rem 1.5rem;line-height:1.5}",
  `.brand{font-weight:700;color:${brand[700]};margin-bottom:2rem}`,
  "h1{font-size:1.5rem;margin:0 0 .75rem}",
  `p{margin:0 0 1rem;color:${ink[700]}}`,
  `a{display:inline-block;margin-top:.5rem;padding:.75rem 1.25rem;border-radius:.75rem;background:${brand[700]};color:#fff;font-weight:700;text-decoration:none}`,
].join("");

function BalancerPage({ title, description }: { title: string; description?: string }) {
  return (
    <html lang="pt-BR">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{`${title} — ${content.site.name}`}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <main>
          <p className="brand">{content.site.name}</p>
          <h1>{title}</h1>
          {description && <p>{description}</p>}
          <p>{content.balancer.keepTyped}</p>
          <a href={`/#${SIGNUP_SECTION_ID}`}>{content.balancer.link}</a>
        </main>
      </body>
    </html>
  );
}

/**
 * The pages by file name, one per meaning (deploy/nginx.conf says which of its answers each is): `busy` for its 429,
 * `too-large` for its 413 (a post over its body limit, read as the app reads one over its own), `unavailable` for its
 * 5xx; `invalid`, `not-allowed` and `too-long` for the requests it refuses as the app would, with the app's text.
 */
export function balancerPages(): Record<string, string> {
  const page = (notice: { title: string; description?: string }) =>
    `<!DOCTYPE html>${renderToStaticMarkup(<BalancerPage {...notice} />)}\n`;
  const { refusals } = content;
  return {
    "busy.html": page(content.messages.tooMany),
    "too-large.html": page(content.messages.unreadable),
    "unavailable.html": page(content.balancer.unavailable),
    "invalid.html": page({ title: refusals.invalid }),
    "not-allowed.html": page({ title: refusals.notAllowed }),
    "too-long.html": page({ title: refusals.tooLong }),
  };
}
