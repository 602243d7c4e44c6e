import { expect, it } from 'vitest';
import {
  crossesBanThreshold,
  DAY_MS,
  decideRate,
  decideTakenBack,
  MINUTE_MS,
  windowEnd,
  windowIndex,
} from '../../src/domain/rate-decision.ts';

const NOW = Date.UTC(2030, 0, 15, 10, 0, 5);
const MINUTE_END = Date.UTC(2030, 0, 15, 10, 1) / 1000;
const DAY_END = Date.UTC(2030, 0, 16) / 1000;
const FREE = { perMinute: 60, perDay: 1000 };

it('binds the minute while it has fewer requests left than the day', () => {
  expect(decideRate(NOW, FREE, 1, 1)).toEqual({
    allowed: true,
    window: 'minute',
    limits: FREE,
    limit: 60,
    remaining: 59,
    reset: MINUTE_END,
    retryAfter: 0,
    overLimitBy: 0,
  });
});

it('binds the day once it has fewer requests left than the minute', () => {
  expect(decideRate(NOW, FREE, 1, 990)).toEqual({
    allowed: true,
    window: 'day',
    limits: FREE,
    limit: 1000,
    remaining: 10,
    reset: DAY_END,
    retryAfter: 0,
    overLimitBy: 0,
  });
});

it('refuses past the minute limit with Retry-After to the end of the minute', () => {
  expect(decideRate(NOW, FREE, 61, 61)).toEqual({
    allowed: false,
    window: 'minute',
    limits: FREE,
    limit: 60,
    remaining: 0,
    reset: MINUTE_END,
    retryAfter: 55,
    overLimitBy: 1,
  });
});

it('refuses past the day limit with Retry-After to the end of the UTC day', () => {
  expect(decideRate(NOW, FREE, 5, 1001)).toEqual({
    allowed: false,
    window: 'day',
    limits: FREE,
    limit: 1000,
    remaining: 0,
    reset: DAY_END,
    retryAfter: DAY_END - NOW / 1000,
    overLimitBy: 1,
  });
});

it('refuses a request past both limits by the day: the minute’s end would bring another refusal', () => {
  expect(decideRate(NOW, FREE, 61, 1001)).toEqual({
    allowed: false,
    window: 'day',
    limits: FREE,
    limit: 1000,
    remaining: 0,
    reset: DAY_END,
    retryAfter: DAY_END - NOW / 1000,
    overLimitBy: 1,
  });
});

it('crosses the ban threshold on the 11th request past the limit only', () => {
  const over = (by: number) => decideRate(NOW, FREE, 60 + by, 60 + by);
  expect([10, 11, 12].map((by) => crossesBanThreshold(over(by)))).toEqual([false, true, false]);
});

it('numbers clock-aligned windows, and a window ends where the next one starts', () => {
  expect(windowIndex(NOW, MINUTE_MS)).toBe(Math.floor(NOW / 60_000));
  expect(windowEnd(NOW, MINUTE_MS)).toBe(MINUTE_END);
  expect(windowIndex(MINUTE_END * 1000, MINUTE_MS)).toBe(windowIndex(NOW, MINUTE_MS) + 1);
  expect(windowEnd(NOW, DAY_MS)).toBe(DAY_END);
});

it('allows the request that uses the day’s last one, leaving none', () => {
  expect(decideRate(NOW, FREE, 5, 1000)).toEqual({
    allowed: true,
    window: 'day',
    limits: FREE,
    limit: 1000,
    remaining: 0,
    reset: DAY_END,
    retryAfter: 0,
    overLimitBy: 0,
  });
});

it('lets points the minute refuses, with the day exactly at its limit, be retried when the minute ends', () => {
  expect(decideTakenBack(NOW, FREE, 2, 61, 1000)).toEqual({
    allowed: false,
    window: 'minute',
    limits: FREE,
    limit: 60,
    remaining: 1,
    reset: MINUTE_END,
    retryAfter: 55,
    overLimitBy: 0,
  });
});
