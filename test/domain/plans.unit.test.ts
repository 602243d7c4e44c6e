import { expect, it } from 'vitest';
import { resolveLimits } from '../../src/domain/plans.ts';
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
    'perMinute must not exceed perDay.',
  );
});

it('refuses an unknown plan', () => {
  expect(() => resolveLimits('gold')).toThrow('plan must be one of free, pro, business, enterprise.');
});
