/** Reads an instance's /metrics (Prometheus' text format) as a scraper does. */

export type Sample = { name: string; labels: Record<string, string>; value: number };

/** Every sample line of a /metrics text. */
export function parseMetrics(text: string): Sample[] {
  return text
    .split("\n")
    .map((line) => /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, name, labels = "", value]) => ({
      name: name!,
      labels: Object.fromEntries(
        [...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, text]) => [key, text]),
      ),
      value: Number(value),
    }));
}

/** /metrics as Prometheus scrapes it, with the bearer token. */
export async function scrapeMetrics(origin: string, token: string): Promise<Sample[]> {
  const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}

/** The sum of `name`'s samples whose labels include `labels` (0 when there is none), as PromQL's sum() would. */
export const sumOf = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
