import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { DAY_MS, MINUTE_MS, windowIndex } from '../../src/domain/rate-decision.ts';
import { LimiterWindowCounter, MemoryWindowCounter } from '../../src/rate-limits/window-counter.ts';

const NOW = Date.UTC(2030, 0, 15, 10, 0, 5);

describe('in memory', () => {
  it('counts per subject within one window, at once rather than through a promise', () => {
    const minute = new MemoryWindowCounter(MINUTE_MS);
    expect([minute.consume('a', NOW), minute.consume('a', NOW, 3), minute.consume('b', NOW)]).toEqual([
      1, 4, 1,
    ]);
  });

  it('starts a new count when the window changes, at hh:mm:00 sharp', () => {
    const minute = new MemoryWindowCounter(MINUTE_MS);
    minute.consume('a', NOW, 5);
    expect(minute.consume('a', Date.UTC(2030, 0, 15, 10, 0, 59, 999))).toBe(6);
    expect(minute.consume('a', Date.UTC(2030, 0, 15, 10, 1, 0))).toBe(1);
  });

  it('takes a refund back from the count of the window it names', () => {
    const minute = new MemoryWindowCounter(MINUTE_MS);
    minute.consume('a', NOW, 3);
    minute.refund('a', NOW, 2);
    expect(minute.consume('a', NOW)).toBe(2);
  });

  it('counts a request in its own window even when the clock stepped back: the window its reset names', () => {
    const minute = new MemoryWindowCounter(MINUTE_MS);
    minute.consume('a', NOW + MINUTE_MS, 3);
    expect(minute.consume('a', NOW)).toBe(1);
  });

  it('takes no refund for a window it no longer counts', () => {
    const minute = new MemoryWindowCounter(MINUTE_MS);
    minute.consume('a', NOW + MINUTE_MS, 3);
    minute.refund('a', NOW);
    expect(minute.consume('a', NOW + MINUTE_MS)).toBe(4);
  });

  it('drops the counts of earlier windows as soon as a request opens a new one', () => {
    const minute = new MemoryWindowCounter(MINUTE_MS);
    for (let i = 0; i < 100; i++) minute.consume(`client-${i}`, NOW);
    minute.consume('a', NOW + MINUTE_MS);
    expect(minute.size).toBe(1);
  });

  it('forgets a subject whose count is refunded to nothing', () => {
    const minute = new MemoryWindowCounter(MINUTE_MS);
    minute.consume('a', NOW);
    minute.refund('a', NOW);
    expect(minute.size).toBe(0);
  });
});

describe('through rate-limiter-flexible (Redis in production)', () => {
  function counter(windowMs: number) {
    const limiter = new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: windowMs / 1000 });
    return { limiter, counter: new LimiterWindowCounter(limiter, windowMs) };
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
});
