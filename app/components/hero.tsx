import { content, SIGNUP_SECTION_ID } from "~/content";
import { ProductPreviewPicture } from "./product-preview-picture";

/**
 * On phones the call to action must fit the first screen (320×640 included), so spacing and type are tighter there.
 * The app's picture sits beside the text from 1024 px on; on narrower screens its top shows below the figures, out of
 * the first screen of a phone.
 */
export function Hero() {
  const { hero } = content;
  return (
    <section
      aria-labelledby="hero-title"
      className="focus-on-dark bg-gradient-to-b from-brand-900 to-brand-800 text-white"
    >
      <div className="mx-auto grid max-w-6xl gap-12 px-4 pb-16 pt-6 sm:px-6 sm:pb-24 sm:pt-16 lg:grid-cols-[minmax(0,1fr)_18rem] lg:items-center">
        <div>
          <ul className="flex flex-wrap gap-2" aria-label="Situação do projeto">
            {hero.badges.map((badge) => (
              <li
                key={badge}
                className="rounded-full border border-brand-200/40 bg-white/10 px-3 py-1 text-xs font-bold uppercase tracking-wide text-brand-100"
              >
                {badge}
              </li>
            ))}
          </ul>
          <h1
            id="hero-title"
            className="mt-4 max-w-3xl text-3xl font-bold leading-tight tracking-tight sm:mt-6 sm:text-5xl xl:text-6xl"
          >
            {hero.title}
          </h1>
          <p className="mt-4 max-w-2xl text-base leading-relaxed text-brand-100 sm:mt-6 sm:text-lg">{hero.lead}</p>
          {/* A plain anchor; with JavaScript the page's boot script also puts the cursor in the e-mail field
              (deferred-boot.tsx), before the framework has arrived. */}
          <a
            href={`#${SIGNUP_SECTION_ID}`}
            className="mt-6 inline-flex min-h-12 items-center rounded-xl bg-accent-400 px-6 py-3 text-base font-bold text-brand-950 shadow-lg shadow-black/20 transition hover:bg-accent-300 sm:mt-8"
          >
            {hero.cta}
          </a>
          <dl className="mt-10 grid max-w-3xl grid-cols-1 gap-4 sm:mt-12 sm:grid-cols-3">
            {hero.figures.map((figure) => (
              <div key={figure.value} className="flex flex-col rounded-2xl border border-white/10 bg-white/5 p-5">
                <dt className="text-sm text-brand-100">{figure.label}</dt>
                <dd className="order-first text-3xl font-bold text-white">{figure.value}</dd>
              </div>
            ))}
          </dl>
        </div>
        {/* Below 1024 px only the phone's top shows, rising from the hero's bottom edge. */}
        <ProductPreviewPicture className="mx-auto -mb-16 aspect-[32/42] w-64 overflow-hidden drop-shadow-2xl sm:-mb-24 sm:w-72 lg:mb-0 lg:aspect-auto lg:overflow-visible" />
      </div>
    </section>
  );
}
