import { expect, it } from 'vitest';
import { combineRuns, type LoadResult, pairedRatio, percentiles } from '../../bench/load.ts';

function rounds(...requestsPerSecond: number[]): LoadResult[] {
  return requestsPerSecond.map((rps) => ({
    requestsPerSecond: rps,
    p50Ms: 1,
    p99Ms: 2,
    latenciesMs: [],
    requests: rps,
    failures: 0,
    statusCodes: `200×${rps}`,
  }));
}

it('is the median of the per-round ratios, with the lowest and highest', () => {
  expect(pairedRatio(rounds(60, 30, 70), rounds(100, 100, 100))).toEqual({
    median: 0.6,
    lowest: 0.3,
    highest: 0.7,
  });
});

it('pairs each pet store round with the baseline round beside it', () => {
  expect(pairedRatio(rounds(30, 60), rounds(50, 100)).median).toBe(0.6);
});

it('takes the mean of the two middle ratios of an even number of rounds', () => {
  expect(pairedRatio(rounds(50, 60, 70, 80), rounds(100, 100, 100, 100)).median).toBeCloseTo(0.65);
});

it('keeps a burst of other work that slowed one round from moving the median', () => {
  const burst = pairedRatio(rounds(60, 60, 10), rounds(100, 100, 100));
  expect([burst.median, burst.lowest]).toEqual([0.6, 0.1]);
});

it('refuses rounds that do not pair up', () => {
  expect(() => pairedRatio(rounds(60), rounds(100, 100))).toThrow(/as many/);
});

it('ranks latencies by nearest rank: p50 and p99 of 1..100 ms are 50 and 99 ms', () => {
  const latencies = Array.from({ length: 100 }, (_, i) => 100 - i);
  expect(percentiles(latencies)).toEqual({ p50Ms: 50, p99Ms: 99 });
});

it("takes the percentiles of combined runs over every response, not the median of each run's", () => {
  const quiet = { ...rounds(100)[0]!, latenciesMs: Array.from({ length: 99 }, () => 1) };
  const stalled = { ...rounds(100)[0]!, latenciesMs: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 40, 40, 40, 40, 40] };
  expect(combineRuns([quiet, quiet, stalled]).p99Ms).toBe(40);
});
