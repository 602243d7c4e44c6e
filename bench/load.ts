import autocannon, { type Request } from 'autocannon';

/** What one run of the load generator measured. */
export type LoadResult = {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
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
 * Drives `url` with autocannon and counts only 2xx responses as served. Latencies are autocannon's
 * (milliseconds, per response, including the time spent queued on the server).
 */
export async function runLoad(url: string, load: Load): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: load.connections,
    duration: load.durationSeconds,
    requests: load.requests,
    timeout: 10,
  });
  const ok = result['2xx'];
  return {
    requestsPerSecond: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: ok,
    failures: result.errors + result.timeouts + result.non2xx,
    statusCodes: Object.entries(result.statusCodeStats)
      .map(([code, { count }]) => `${code}×${count}`)
      .join(' '),
  };
}
