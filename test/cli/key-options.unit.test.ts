import { describe, expect, it } from 'vitest';
import { parseAsOf } from '../../src/application/queries/time-travel.ts';
import { durationOf, expiryOf } from '../../src/cli/key-options.ts';
import { UsageError } from '../../src/cli/usage-error.ts';

const NOW = new Date('2026-11-26T12:00:00Z');
const NOT_A_TIME = new UsageError('--expires-at must be an RFC 3339 time, such as 2027-01-31T00:00:00Z');

describe('--expires-at reads RFC 3339 as asOf does', () => {
  it('takes a lowercase t and z, which RFC 3339 allows', () => {
    expect(expiryOf({ 'expires-at': '2027-01-31t08:30:00z' }, NOW)).toEqual(new Date('2027-01-31T08:30:00Z'));
    expect(parseAsOf('2027-01-31t08:30:00z')).toEqual({ timeMs: Date.UTC(2027, 0, 31, 8, 30) });
  });

  it('refuses a time without seconds, which RFC 3339 requires', () => {
    expect(() => expiryOf({ 'expires-at': '2027-01-31T08:30Z' }, NOW)).toThrow(NOT_A_TIME);
    expect(() => parseAsOf('2027-01-31T08:30Z')).toThrow('asOf must be an RFC 3339 time');
  });

  it('counts a leap second as the second after it', () => {
    expect(expiryOf({ 'expires-at': '2027-06-30T23:59:60Z' }, NOW)).toEqual(new Date('2027-07-01T00:00:00Z'));
  });
});

describe('durationOf', () => {
  it('reads a duration in any unit of the ms package', () => {
    expect(durationOf('1.5s', '--grace')).toBe(1500);
  });

  it('refuses a part of a millisecond, naming the flag, rather than calling it out of range', () => {
    expect(() => durationOf('0.0001ms', '--grace')).toThrow(
      new UsageError('--grace must be a whole number of milliseconds: 0.0001ms is 0.0001 ms'),
    );
  });
});
