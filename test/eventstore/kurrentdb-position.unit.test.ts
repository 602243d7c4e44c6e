import { describe, expect, it } from 'vitest';
import { isKnownPosition, packPosition, unpackPosition } from '../../src/eventstore/kurrentdb-position.ts';

describe('KurrentDB positions packed into one bigint', () => {
  it('round-trips a (commit, prepare) pair', () => {
    const position = { commit: 9_007_199_254_740_993n, prepare: 9_007_199_254_741_017n };
    expect(unpackPosition(packPosition(position))).toEqual(position);
  });

  it('orders the events of an explicit transaction, which share a commit position, by their prepare positions', () => {
    const first = packPosition({ commit: 1000n, prepare: 1000n });
    const second = packPosition({ commit: 1000n, prepare: 1150n });
    expect(second > first).toBe(true);
  });

  it('orders a later commit after every event of an earlier one', () => {
    const earlier = packPosition({ commit: 1000n, prepare: 18_446_744_073_709_551_614n });
    const later = packPosition({ commit: 1001n, prepare: 1001n });
    expect(later > earlier).toBe(true);
  });

  it('keeps the largest commit position exact, beyond Number.MAX_SAFE_INTEGER', () => {
    const packed = packPosition({ commit: 2n ** 63n - 1n, prepare: 2n ** 63n - 1n });
    expect(packed.toString()).toBe('170141183460469231722463931679029329919');
  });

  it('rejects a negative packed position', () => {
    expect(() => unpackPosition(-1n)).toThrow(RangeError);
  });

  it('treats the all-ones value a stream read may carry as unknown', () => {
    const max = 2n ** 64n - 1n;
    expect(isKnownPosition({ commit: max, prepare: max })).toBe(false);
    expect(isKnownPosition(undefined)).toBe(false);
    expect(isKnownPosition({ commit: 5n, prepare: 5n })).toBe(true);
  });
});
