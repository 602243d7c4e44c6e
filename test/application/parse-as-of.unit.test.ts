import { describe, expect, it } from 'vitest';
import { parseAsOf } from '../../src/application/queries/time-travel.ts';

describe('parseAsOf', () => {
  it('reads decimal digits as a store position', () => {
    expect(parseAsOf('42')).toEqual({ position: 42n });
  });

  it('reads an RFC 3339 time with an offset as its instant', () => {
    expect(parseAsOf('2030-01-15T11:00:05+01:00')).toEqual({ timeMs: Date.UTC(2030, 0, 15, 10, 0, 5) });
  });

  it('counts a leap second as the second after it', () => {
    expect(parseAsOf('2016-12-31T23:59:60Z')).toEqual({ timeMs: Date.UTC(2017, 0, 1) });
  });

  it('takes 29 February of a leap year, year 0000 included', () => {
    expect(parseAsOf('2028-02-29T00:00:00Z')).toEqual({ timeMs: Date.UTC(2028, 1, 29) });
    expect(parseAsOf('0000-02-29T00:00:00Z')).toEqual({ timeMs: Date.parse('0000-02-29T00:00:00Z') });
  });

  it.each([
    ['2030-02-31T00:00:00Z'],
    ['2029-02-29T00:00:00Z'],
    ['2030-04-31T12:00:00Z'],
    ['1900-02-29T00:00:00Z'],
  ])('refuses %s, a day the month does not have, instead of rolling it over', (text) => {
    expect(() => parseAsOf(text)).toThrow('asOf must be an RFC 3339 time');
  });
});
