import { expect, it } from 'vitest';
import { MAX_CUSTOM_LIMIT, resolveLimits } from '../../src/domain/plans.ts';
import { ValidationError } from '../../src/shared/errors.ts';

it('gives each published plan the interface’s figures', () => {
  expect(['free', 'pro', 'business'].map((plan) => resolveLimits(plan).limits)).toEqual([
    { perMinute: 60, perDay: 1000 },
    { perMinute: 300, perDay: 10_000 },
    { perMinute: 1000, perDay: 100_000 },
  ]);
});

it('requires both custom limits for enterprise', () => {
  expect(() => resolveLimits('enterprise', { perMinute: 10 })).toThrow(
    new ValidationError('The enterprise plan needs perDay.', 'perDay'),
  );
});

it('refuses a per-minute limit above the per-day limit', () => {
  expect(() => resolveLimits('enterprise', { perMinute: 10, perDay: 5 })).toThrow(
    new ValidationError('perMinute must not exceed perDay.', 'perMinute'),
  );
});

it('refuses an unknown plan', () => {
  expect(() => resolveLimits('gold')).toThrow(
    new ValidationError('plan must be one of free, pro, business, enterprise.', 'plan'),
  );
});

it('accepts a per-minute limit equal to the per-day limit', () => {
  expect(resolveLimits('enterprise', { perMinute: 500, perDay: 500 }).limits).toEqual({
    perMinute: 500,
    perDay: 500,
  });
});

it('accepts custom limits from 1 up to the largest safe integer', () => {
  expect(resolveLimits('enterprise', { perMinute: 1, perDay: MAX_CUSTOM_LIMIT }).limits).toEqual({
    perMinute: 1,
    perDay: MAX_CUSTOM_LIMIT,
  });
});

it.each([
  [{ perMinute: 0, perDay: 10 }, 'perMinute'],
  [{ perMinute: -1, perDay: 10 }, 'perMinute'],
  [{ perMinute: 1.5, perDay: 10 }, 'perMinute'],
  [{ perMinute: 1, perDay: MAX_CUSTOM_LIMIT + 1 }, 'perDay'],
  [{ perMinute: 1, perDay: Number.NaN }, 'perDay'],
])('refuses the custom limits %j, naming the field %s', (custom, field) => {
  expect(() => resolveLimits('enterprise', custom)).toThrow(
    new ValidationError(`${field} must be an integer from 1 to ${MAX_CUSTOM_LIMIT}.`, field),
  );
});

it.each([[{ perMinute: 10, perDay: 100 }], [{ perMinute: 10 }], [{ perDay: 100 }]])(
  'refuses custom limits %j for a published plan, whose figures are fixed',
  (custom) => {
    expect(() => resolveLimits('pro', custom)).toThrow(
      new ValidationError('Custom limits apply to the enterprise plan only, not pro.', 'plan'),
    );
  },
);
