/**
 * Projection lag between two API processes on one store: a pet is created through one process,
 * and the other is polled until its read model has the pet. A client gets read-your-writes from
 * the process that took its write; from any other, within this lag.
 */

export type LagFigures = {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
};

export async function measureCrossProcessLag(
  writerUrl: string,
  readerUrl: string,
  authorization: string,
  samples: number,
): Promise<LagFigures> {
  const lags: number[] = [];
  for (let i = 0; i < samples; i++) {
    const created = await fetch(new URL('/v1/pets', writerUrl), {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Lag ${i}`, categoryId: 1 }),
    });
    if (created.status !== 201) throw new Error(`POST answered ${created.status}: ${await created.text()}`);
    const acknowledged = performance.now();
    const { id } = (await created.json()) as { id: number };
    lags.push((await seenAt(new URL(`/v1/pets/${id}`, readerUrl), authorization)) - acknowledged);
  }
  lags.sort((a, b) => a - b);
  const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? 0;
  return { samples, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: lags.at(-1) ?? 0 };
}

/** Polls until the reader answers 200, and returns when it did; gives up after 10 s. */
async function seenAt(url: URL, authorization: string): Promise<number> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    const response = await fetch(url, { headers: { authorization } });
    await response.arrayBuffer();
    if (response.status === 200) return performance.now();
    if (response.status !== 404) throw new Error(`GET ${url.pathname} answered ${response.status}`);
  }
  throw new Error(`${url.pathname} did not appear on the other process within 10 s`);
}
