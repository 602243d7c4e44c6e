import { RateLimiterMemory } from 'rate-limiter-flexible';
import { expect, it } from 'vitest';
import { DAY_MS, MINUTE_MS, windowIndex } from '../../src/auth/rate-decision.ts';
import { WindowCounter } from '../../src/auth/window-counter.ts';

const NOW = Date.UTC(2030, 0, 15, 10, 0, 5);

function counter(windowMs: number) {
  const limiter = new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: windowMs / 1000 });
  return { limiter, counter: new WindowCounter(limiter, windowMs) };
}

it('counts per subject within one window', async () => {
  const { counter: minute } = counter(MINUTE_MS);
  expect([
    await minute.consume('a', NOW),
    await minute.consume('a', NOW, 3),
    await minute.consume('b', NOW),
  ]).toEqual([1, 4, 1]);
});

it('forgets a minute counter when its minute ends, 55 s after hh:mm:05', async () => {
  const { limiter, counter: minute } = counter(MINUTE_MS);
  await minute.consume('a', NOW);
  const stored = await limiter.get(`a:${windowIndex(NOW, MINUTE_MS)}`);
  expect(stored!.msBeforeNext).toBeGreaterThan(54_000);
  expect(stored!.msBeforeNext).toBeLessThanOrEqual(55_000);
});

it('forgets a day counter at UTC midnight, not a day after its first request', async () => {
  const { limiter, counter: day } = counter(DAY_MS);
  const lateEvening = Date.UTC(2030, 0, 15, 23, 59, 0);
  await day.consume('a', lateEvening);
  const stored = await limiter.get(`a:${windowIndex(lateEvening, DAY_MS)}`);
  expect(stored!.msBeforeNext).toBeLessThanOrEqual(60_000);
});
