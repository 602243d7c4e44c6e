import { expect, it } from 'vitest';
import type { LoadResult } from '../../bench/load.ts';
import { httpVerdict } from '../../bench/report.ts';
import type { HttpScenario } from '../../bench/scenarios/http.ts';

const POST: HttpScenario = {
  name: 'POST /v1/pets (durable)',
  connections: 64,
  minRatio: 0.5,
  maxP99Ms: 10,
  requests: [],
};

const load = (requestsPerSecond: number, p99Ms: number): LoadResult => ({
  requestsPerSecond,
  p50Ms: p99Ms / 3,
  p99Ms,
  latenciesMs: [],
  requests: requestsPerSecond * 10,
  failures: 0,
  statusCodes: '201',
});

const ratio = (median: number) => ({ median, lowest: median, highest: median });

it('meets a ratio and p99 target when both hold', () => {
  expect(
    httpVerdict({
      scenario: POST,
      petstore: load(6_000, 9.5),
      baseline: load(11_000, 5),
      ratio: ratio(0.55),
    }),
  ).toEqual({
    target: '≥ 50%, p99 < 10 ms',
    met: 'yes',
  });
});

it('says a missed p99 target is missed by the bare baseline too, when it is', () => {
  expect(
    httpVerdict({
      scenario: POST,
      petstore: load(4_577, 39.1),
      baseline: load(11_243, 12.1),
      ratio: ratio(0.414),
    }).met,
  ).toBe("**no** (the baseline's p99, 12.1 ms, misses it too)");
});

it('says only "no" when the baseline met the p99 target', () => {
  expect(
    httpVerdict({
      scenario: POST,
      petstore: load(4_577, 39.1),
      baseline: load(11_243, 8.2),
      ratio: ratio(0.414),
    }).met,
  ).toBe('**no**');
});

it('has no target for a scenario without one', () => {
  const history = { name: 'history', connections: 64, requests: [] };
  expect(
    httpVerdict({ scenario: history, petstore: load(1, 1), baseline: load(1, 1), ratio: ratio(1) }),
  ).toEqual({
    target: '–',
    met: '–',
  });
});
