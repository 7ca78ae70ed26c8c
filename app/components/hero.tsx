import { content, EMAIL_INPUT_ID, SIGNUP_SECTION_ID } from "~/content";

/**
 * The link works as a plain anchor; with JavaScript it also puts the cursor in
 * the e-mail field, once the anchor's own navigation (which drops focus) is done.
 */
function focusEmailField() {
  setTimeout(() => document.getElementById(EMAIL_INPUT_ID)?.focus({ preventScroll: true }));
}

export function Hero() {
  const { hero } = content;
  return (
    <section aria-labelledby="hero-title" className="bg-gradient-to-b from-brand-900 to-brand-800 text-white">
      <div className="mx-auto max-w-6xl px-4 pb-16 pt-10 sm:px-6 sm:pb-24 sm:pt-16">
        <ul className="flex flex-wrap gap-2" aria-label="Situação do projeto">
          {hero.badges.map((badge) => (
            <li
              key={badge}
              className="rounded-full border border-brand-200/40 bg-white/10 px-3 py-1 text-xs font-semibold uppercase tracking-wide text-brand-100"
            >
              {badge}
            </li>
          ))}
        </ul>
        <h1
          id="hero-title"
          className="mt-6 max-w-3xl text-4xl font-extrabold leading-tight tracking-tight sm:text-5xl lg:text-6xl"
        >
          {hero.title}
        </h1>
        <p className="mt-6 max-w-2xl text-lg leading-relaxed text-brand-100">{hero.lead}</p>
        <a
          href={`#${SIGNUP_SECTION_ID}`}
          onClick={focusEmailField}
          className="mt-8 inline-flex min-h-12 items-center rounded-xl bg-accent-400 px-6 py-3 text-base font-bold text-brand-950 shadow-lg shadow-black/20 transition hover:bg-accent-300"
        >
          {hero.cta}
        </a>
        <dl className="mt-12 grid max-w-3xl grid-cols-1 gap-4 sm:grid-cols-3">
          {hero.figures.map((figure) => (
            <div key={figure.value} className="flex flex-col rounded-2xl border border-white/10 bg-white/5 p-5">
              <dt className="text-sm text-brand-100">{figure.label}</dt>
              <dd className="order-first text-3xl font-extrabold text-white">{figure.value}</dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}
