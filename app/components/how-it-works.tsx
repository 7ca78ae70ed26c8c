import { content } from "~/content";
import { SectionHeading } from "./section-heading";

export function HowItWorks() {
  const { steps } = content;
  return (
    <section aria-labelledby="steps-title" className="bg-brand-50">
      <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6 sm:py-24">
        <SectionHeading id="steps-title" title={steps.title} />
        <ol className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {steps.items.map((step, index) => (
            <li key={step.title} className="rounded-2xl bg-white p-6 shadow-sm">
              <span
                className="flex h-10 w-10 items-center justify-center rounded-full bg-brand-700 text-lg font-bold text-white"
                aria-hidden="true"
              >
                {index + 1}
              </span>
              <h3 className="mt-4 text-lg font-bold">
                <span className="sr-only">{steps.stepLabel(index + 1)}</span>
                {step.title}
              </h3>
              <p className="mt-2 leading-relaxed text-ink-600">{step.text}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
