import { OTHER } from "./attribution.server";

export type Bounds = {
  /** Distinct values each label may take per instance, first come; later ones are OTHER. */
  valuesPerLabel: number;
  /** Distinct series each metric may hold per instance; a new one past it has OTHER in every bounded label. */
  seriesPerMetric: number;
};

/** Labels as they may be counted, and whether they name a series the metric did not hold yet. */
export type Bounded<L> = { labels: L; first: boolean };

/**
 * Keeps what visitors' addresses can make of the counts finite, so a script sending a million campaign names grows
 * neither memory nor /metrics: each label has at most `valuesPerLabel` values of its own (ours, in parentheses, are
 * always allowed), each metric at most `seriesPerMetric` series plus its all-OTHER ones. Called on every page view:
 * no allocation beyond the answer.
 */
export class BoundedLabels {
  private readonly values = new Map<string, Set<string>>();
  private readonly series = new Map<string, Set<string>>();

  constructor(private readonly bounds: Bounds) {}

  /** `bounded` as they may be counted in `metric`, beside `fixed` labels that have few values by construction. */
  labels<B extends Record<string, string>, F extends Record<string, string>>(
    metric: string,
    bounded: B,
    fixed: F,
  ): Bounded<B & F> {
    const labels: Record<string, string> = {};
    let key = "";
    for (const label in bounded) key += (labels[label] = this.value(label, bounded[label]!)) + "\n";
    for (const label in fixed) key += (labels[label] = fixed[label]!) + "\n";
    let seen = this.series.get(metric);
    if (!seen) this.series.set(metric, (seen = new Set()));
    if (seen.has(key)) return { labels: labels as B & F, first: false };
    if (seen.size < this.bounds.seriesPerMetric) {
      seen.add(key);
      return { labels: labels as B & F, first: true };
    }
    for (const label in bounded) labels[label] = OTHER;
    return { labels: labels as B & F, first: false };
  }

  private value(label: string, value: string): string {
    if (value.startsWith("(")) return value;
    let known = this.values.get(label);
    if (!known) this.values.set(label, (known = new Set()));
    if (known.has(value)) return value;
    if (known.size >= this.bounds.valuesPerLabel) return OTHER;
    known.add(value);
    return value;
  }
}
