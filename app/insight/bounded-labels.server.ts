import { OTHER } from "./attribution.server";

export type Bounds = {
  /** Distinct values each label may hold per instance; past it a new value is OTHER, unless proven (below). */
  valuesPerLabel: number;
  /** Labels whose values are OTHER until proven: what anyone may type is a label only once the team vouched for it. */
  provenOnly: readonly string[];
  /** Distinct series each metric may hold per instance; a new one past it has OTHER in every bounded label. */
  seriesPerMetric: number;
};

/** Labels as they may be counted, and whether they name a series the metric did not hold yet. */
type Bounded<L> = { labels: L; first: boolean };

type Labels = Record<string, string>;

/** Ours, in parentheses ((none), (direct), (other)…): normalisation never yields one, and they take no place. */
const isOurs = (value: string) => value.startsWith("(");

/**
 * Keeps what visitors' addresses can make of the counts finite, so a script sending a million campaign names grows
 * neither memory nor /metrics: each label has at most `valuesPerLabel` values of its own, each metric at most
 * `seriesPerMetric` series plus its all-OTHER ones.
 *
 * Places go first come, but a page view costs nothing to forge: a script could take every place before a real
 * campaign arrives. So a value an accepted sign-up carried (a captcha solved or a question answered: `prove`) outranks
 * the others: it takes the place of the oldest unproven value of its label, and a series of proven values that of the
 * oldest series holding an unproven one. What is given up is dropped (`dropped`), so /metrics keeps its bounds.
 */
export class BoundedLabels {
  /** Per label, its values in the order they came, and whether each is proven. */
  private readonly values = new Map<string, Map<string, boolean>>();
  /** Per metric, its series in the order they came, by key. */
  private readonly series = new Map<string, Map<string, Labels>>();

  constructor(
    private readonly bounds: Bounds,
    private readonly dropped: (metric: string, labels: Labels) => void = () => {},
  ) {}

  /** `bounded` as they may be counted in `metric`, beside `fixed` labels that have few values by construction. */
  labels<B extends Labels, F extends Labels>(metric: string, bounded: B, fixed: F): Bounded<B & F> {
    const labels: Labels = {};
    for (const label in bounded) labels[label] = this.value(label, bounded[label]!);
    Object.assign(labels, fixed);
    const key = Object.values(labels).join("\n");
    let held = this.series.get(metric);
    if (!held) this.series.set(metric, (held = new Map()));
    if (held.has(key)) return { labels: labels as B & F, first: false };
    if (held.size >= this.bounds.seriesPerMetric && !this.makeRoom(metric, held, labels, Object.keys(bounded))) {
      for (const label in bounded) labels[label] = OTHER;
      return { labels: labels as B & F, first: false };
    }
    held.set(key, labels);
    return { labels: labels as B & F, first: true };
  }

  /** The values an accepted sign-up carried: each keeps or takes a place of its own in its label. */
  prove(bounded: Labels): void {
    for (const [label, value] of Object.entries(bounded)) {
      if (isOurs(value)) continue;
      const known = this.known(label);
      if (!known.has(value) && known.size >= this.bounds.valuesPerLabel) {
        const unproven = [...known].find(([, proven]) => !proven)?.[0];
        if (unproven === undefined) continue;
        known.delete(unproven);
        this.dropSeries((labels) => labels[label] === unproven);
      }
      known.set(value, true);
    }
  }

  private value(label: string, value: string): string {
    if (isOurs(value)) return value;
    const known = this.known(label);
    if (known.has(value)) return value;
    if (known.size >= this.bounds.valuesPerLabel || this.bounds.provenOnly.includes(label)) return OTHER;
    known.set(value, false);
    return value;
  }

  private known(label: string): Map<string, boolean> {
    let known = this.values.get(label);
    if (!known) this.values.set(label, (known = new Map()));
    return known;
  }

  private isProven(labels: Labels, names: readonly string[]): boolean {
    return names.every((label) => isOurs(labels[label]!) || this.values.get(label)?.get(labels[label]!) === true);
  }

  /** A full metric gives a series of proven values the place of its oldest series holding an unproven value. */
  private makeRoom(metric: string, held: Map<string, Labels>, labels: Labels, names: readonly string[]): boolean {
    if (!this.isProven(labels, names)) return false;
    for (const [key, other] of held) {
      if (this.isProven(other, names)) continue;
      held.delete(key);
      this.dropped(metric, other);
      return true;
    }
    return false;
  }

  private dropSeries(holds: (labels: Labels) => boolean): void {
    for (const [metric, held] of this.series)
      for (const [key, labels] of held) {
        if (!holds(labels)) continue;
        held.delete(key);
        this.dropped(metric, labels);
      }
  }
}
