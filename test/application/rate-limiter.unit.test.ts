import { randomUUID } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { expect, it } from 'vitest';
import type { ApiKey } from '../../src/domain/api-keys.ts';
import { RateLimiter } from '../../src/application/rate-limiter.ts';
import { DAY_MS, secondsUntil, windowEnd } from '../../src/domain/rate-decision.ts';
import { LimiterWindowCounter, memoryCounters } from '../../src/rate-limits/window-counter.ts';

const NOW = Date.UTC(2030, 0, 15, 10, 0, 5);

function enterpriseKey(perMinute: number, perDay: number): ApiKey {
  return {
    keyId: `key_${randomUUID().slice(0, 8)}`,
    name: '',
    plan: 'enterprise',
    limits: { perMinute, perDay },
    secretHash: '',
    issuedAt: '',
    revoked: false,
    bannedUntilMs: 0,
    scopes: ['pets:read'],
    expiresAtMs: 0,
    previousSecretHash: undefined,
    previousSecretValidUntilMs: 0,
  };
}

it('does not use up the day with a request the minute window refused', async () => {
  const limiter = new RateLimiter(memoryCounters());
  const key = enterpriseKey(2, 4);
  const minuteOne = [];
  for (let i = 0; i < 3; i++) minuteOne.push((await limiter.limitKey(key, NOW)).allowed);
  expect(minuteOne).toEqual([true, true, false]);
  const status = await limiter.limitKey(key, NOW + 60_000);
  expect([status.allowed, status.limit, status.remaining]).toEqual([true, 4, 1]);
});

it('takes back every point of a refused further charge: the budget it would have overrun stays for requests that fit', async () => {
  const limiter = new RateLimiter(memoryCounters());
  const key = enterpriseKey(5, 100);
  await limiter.limitKey(key, NOW);
  const refused = await limiter.limitKeyFurther(key, NOW, 9);
  expect([refused.allowed, refused.remaining, refused.overLimitBy]).toEqual([false, 4, 0]);
  const next = [];
  for (let i = 0; i < 5; i++) next.push((await limiter.limitKey(key, NOW)).allowed);
  expect(next).toEqual([true, true, true, true, false]);
});

it('takes back a further charge the day refused, from the day and the minute', async () => {
  const limiter = new RateLimiter(memoryCounters());
  const key = enterpriseKey(50, 8);
  await limiter.limitKey(key, NOW);
  expect((await limiter.limitKeyFurther(key, NOW, 8)).window).toBe('day');
  const status = await limiter.limitKey(key, NOW);
  expect([status.allowed, status.window, status.remaining]).toEqual([true, 'day', 6]);
});

it('describes the day, with what it has left, when the minute refuses a further charge the day has fewer left for', async () => {
  const limiter = new RateLimiter(memoryCounters());
  const key = enterpriseKey(10, 12);
  for (let i = 0; i < 7; i++) await limiter.limitKey(key, NOW);
  for (let i = 0; i < 3; i++) await limiter.limitKey(key, NOW + 60_000);
  const refused = await limiter.limitKeyFurther(key, NOW + 60_000, 8);
  expect([refused.allowed, refused.window, refused.limit, refused.remaining]).toEqual([false, 'day', 12, 2]);
});

it('retries a further charge both windows refuse when the day ends, not the minute', async () => {
  const limiter = new RateLimiter(memoryCounters());
  const key = enterpriseKey(10, 12);
  for (let i = 0; i < 7; i++) await limiter.limitKey(key, NOW);
  for (let i = 0; i < 3; i++) await limiter.limitKey(key, NOW + 60_000);
  const refused = await limiter.limitKeyFurther(key, NOW + 60_000, 8);
  expect(refused.retryAfter).toBe(secondsUntil(NOW + 60_000, windowEnd(NOW, DAY_MS) * 1000));
});

it('numbers the refusals past the limit one by one while a further charge is counted and taken back', async () => {
  const counted = (windowMs: number) =>
    new LimiterWindowCounter(
      new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: windowMs / 1000 }),
      windowMs,
    );
  const limiter = new RateLimiter({ counter: (_name, windowMs) => counted(windowMs) });
  const key = enterpriseKey(1, 100);
  await limiter.limitKey(key, NOW);
  const [further, first, second] = await Promise.all([
    limiter.limitKeyFurther(key, NOW, 9),
    limiter.limitKey(key, NOW),
    limiter.limitKey(key, NOW),
  ]);
  expect(further.allowed).toBe(false);
  expect([first.overLimitBy, second.overLimitBy]).toEqual([1, 2]);
});

it('counts the minute and the day at the same time, not one after the other', async () => {
  const started: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  class GatedLimiter extends RateLimiterMemory {
    override async consume(...args: Parameters<RateLimiterMemory['consume']>) {
      started.push(args[0] as string);
      await gate;
      return super.consume(...args);
    }
  }
  const gated = (windowMs: number) =>
    new LimiterWindowCounter(
      new GatedLimiter({ points: Number.MAX_SAFE_INTEGER, duration: windowMs / 1000 }),
      windowMs,
    );
  const limiter = new RateLimiter({ counter: (_name, windowMs) => gated(windowMs) });
  const counting = limiter.limitKey(enterpriseKey(10, 100), NOW);
  await Promise.resolve();
  expect(started).toHaveLength(2);
  release();
  expect((await counting).remaining).toBe(9);
});

it('answers at once, without a promise, when the counters are in memory', () => {
  const limiter = new RateLimiter(memoryCounters());
  const key = enterpriseKey(10, 100);
  const status = limiter.limitKey(key, NOW);
  expect(status).toEqual({
    allowed: true,
    window: 'minute',
    limits: key.limits,
    limit: 10,
    remaining: 9,
    reset: NOW / 1000 + 55,
    retryAfter: 0,
    overLimitBy: 0,
  });
});

it('refuses in memory, at once, the request past the minute limit', () => {
  const limiter = new RateLimiter(memoryCounters());
  const key = enterpriseKey(1, 100);
  limiter.limitKey(key, NOW);
  expect(limiter.limitKey(key, NOW)).toMatchObject({ allowed: false, retryAfter: 55, overLimitBy: 1 });
});

it('keeps serving a key within its plan after the clock stepped back, with resets that come true', () => {
  const limiter = new RateLimiter(memoryCounters());
  limiter.limitKey(enterpriseKey(60, 100_000), NOW + 5 * 60_000); // another key, while the clock ran fast
  const key = enterpriseKey(60, 100_000);
  const statuses = [];
  for (let minute = 0; minute < 3; minute++)
    for (let i = 0; i < 50; i++) statuses.push(limiter.limitKey(key, NOW + minute * 60_000 + i * 1000));
  expect(statuses.every((status) => !(status instanceof Promise) && status.allowed)).toBe(true);
  expect(statuses.at(-1)).toMatchObject({ limit: 60, remaining: 10 });
});

it('counts further points that take the day exactly to its limit', async () => {
  const limiter = new RateLimiter(memoryCounters());
  const key = enterpriseKey(50, 8);
  await limiter.limitKey(key, NOW);
  const status = await limiter.limitKeyFurther(key, NOW, 7);
  expect([status.allowed, status.window, status.remaining]).toEqual([true, 'day', 0]);
});

it('limits requests without a key to 20 a minute per address, counting a /64 as one address', async () => {
  const limiter = new RateLimiter(memoryCounters());
  const statuses = [];
  for (let i = 1; i <= 21; i++) statuses.push(await limiter.limitAnonymous(`2001:db8:1:2::${i}`, NOW));
  expect(statuses.map((status) => status.allowed)).toEqual([...Array<boolean>(20).fill(true), false]);
  expect(statuses[20]).toMatchObject({
    window: 'minute',
    limit: 20,
    remaining: 0,
    retryAfter: 55,
    overLimitBy: 1,
  });
  expect((await limiter.limitAnonymous('2001:db8:1:3::1', NOW)).allowed).toBe(true);
});

it('gives the public routes a budget per address apart from requests without a key', async () => {
  const limiter = new RateLimiter(memoryCounters(), { perMinute: 1, perDay: 10 });
  await limiter.limitAnonymous('203.0.113.9', NOW);
  expect((await limiter.limitAnonymous('203.0.113.9', NOW)).allowed).toBe(false);
  expect((await limiter.limitPublic('203.0.113.9', NOW)).allowed).toBe(true);
  expect((await limiter.limitPublic('203.0.113.9', NOW)).allowed).toBe(false);
});
