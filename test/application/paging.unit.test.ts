import { describe, expect, it } from 'vitest';
import { validateAfter } from '../../src/application/queries/paging.ts';

describe('validateAfter', () => {
  it('takes 0 and the largest id', () => {
    expect([validateAfter(0, 'a pet'), validateAfter(Number.MAX_SAFE_INTEGER, 'a pet')]).toEqual([
      0,
      Number.MAX_SAFE_INTEGER,
    ]);
  });

  it.each([[-1], [1e20], [1.5]])('refuses %d stating the range', (after) => {
    expect(() => validateAfter(after, 'a pet')).toThrow(
      'after must be a pet id: an integer from 0 to 9007199254740991.',
    );
  });
});
