import autocannon, { type Request } from 'autocannon';

/** What one run of the load generator measured. */
export type LoadResult = {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Every 2xx response's latency, so that runs combine into exact percentiles; empty once combined. */
  readonly latenciesMs: readonly number[];
  readonly requests: number;
  /** Connection errors, timeouts and non-2xx responses: any of them makes the run a failure. */
  readonly failures: number;
  readonly statusCodes: string;
};

export type Load = {
  readonly connections: number;
  readonly durationSeconds: number;
  /** Each connection sends these in turn, in a loop. */
  readonly requests: Request[];
};

/**
 * Drives `url` with autocannon and counts only 2xx responses as served. Latencies are measured per
 * response by autocannon (milliseconds, including the time spent queued on the server) and kept
 * whole, so that percentiles over several runs are exact rather than an average of percentiles.
 */
export async function runLoad(url: string, load: Load): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const result = await autocannon({
    url,
    connections: load.connections,
    duration: load.durationSeconds,
    requests: load.requests,
    timeout: 10,
  }).on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) latenciesMs.push(responseTimeMs);
  });
  const ok = result['2xx'];
  return {
    requestsPerSecond: ok / result.duration,
    ...percentiles(latenciesMs),
    latenciesMs,
    requests: ok,
    failures: result.errors + result.timeouts + result.non2xx,
    statusCodes: Object.entries(result.statusCodeStats)
      .map(([code, { count }]) => `${code}×${count}`)
      .join(' '),
  };
}

/** p50 and p99 by nearest rank; 0 when there is nothing to rank. */
export function percentiles(latenciesMs: readonly number[]): { p50Ms: number; p99Ms: number } {
  const sorted = Float64Array.from(latenciesMs).sort();
  const rank = (p: number) => (sorted.length === 0 ? 0 : sorted[Math.ceil(p * sorted.length) - 1]!);
  return { p50Ms: rank(0.5), p99Ms: rank(0.99) };
}

/**
 * Several runs of the same load as one figure: requests per second over their total time, and
 * latency percentiles over every response of every run.
 */
export function combineRuns(runs: readonly LoadResult[]): LoadResult {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const seconds = runs.reduce((sum, run) => sum + run.requests / (run.requestsPerSecond || 1), 0);
  return {
    requestsPerSecond: seconds === 0 ? 0 : requests / seconds,
    ...percentiles(runs.flatMap((run) => run.latenciesMs)),
    // Not kept: at tens of thousands of responses a second they would be tens of megabytes.
    latenciesMs: [],
    requests,
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
    statusCodes: runs.map((run) => run.statusCodes).join(' | '),
  };
}

/** The pet store's share of the baseline, from rounds run in pairs (baseline, then pet store). */
export type PairedRatio = { readonly median: number; readonly lowest: number; readonly highest: number };

/**
 * The median of the per-round ratios, with the lowest and highest: a burst of other work on the
 * machine that hits one side of one round moves one ratio of many, where it would move a ratio of
 * the totals by its whole weight. On a quiet machine both estimates agree.
 */
export function pairedRatio(petstore: readonly LoadResult[], baseline: readonly LoadResult[]): PairedRatio {
  if (petstore.length === 0 || petstore.length !== baseline.length)
    throw new Error('pairedRatio needs as many pet store rounds as baseline rounds, at least one');
  const ratios = petstore
    .map((run, i) => run.requestsPerSecond / baseline[i]!.requestsPerSecond)
    .sort((a, b) => a - b);
  const middle = ratios.length >> 1;
  const median = ratios.length % 2 === 1 ? ratios[middle]! : (ratios[middle - 1]! + ratios[middle]!) / 2;
  return { median, lowest: ratios[0]!, highest: ratios.at(-1)! };
}
