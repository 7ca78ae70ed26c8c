import { content } from "~/content";
import { Icon } from "./icons";
import { SectionHeading } from "./section-heading";

export function FeatureGrid() {
  const { features } = content;
  return (
    <section aria-labelledby="features-title" className="bg-white">
      <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6 sm:py-24">
        <SectionHeading id="features-title" title={features.title} lead={features.lead} />
        <ul className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {features.items.map((feature) => (
            <li key={feature.title} className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
              <span className="inline-flex h-12 w-12 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
                <Icon name={feature.icon} />
              </span>
              <h3 className="mt-4 text-lg font-bold">{feature.title}</h3>
              <p className="mt-2 leading-relaxed text-ink-600">{feature.text}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
