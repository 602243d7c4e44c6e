/** One scrape in Prometheus's text format: `name{label="value",…}` → sample value. */
export type Scrape = ReadonlyMap<string, number>;

export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** A series' key as prom-client prints it: labels in the order given. */
export function series(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`;
}

/** How much a series moved between two scrapes (absent counts as 0). */
export function moved(before: Scrape, after: Scrape, key: string): number {
  return (after.get(key) ?? 0) - (before.get(key) ?? 0);
}
