import { describe, expect, it } from 'vitest';
import { turnsEvery } from '../../src/shared/next-turn.ts';

describe('turnsEvery', () => {
  it('gives a turn of the event loop once as many items as it was told were applied since the last, not before', () => {
    const turn = turnsEvery(2000);
    // KurrentDB's subscription: one event at a time.
    const turns = Array.from({ length: 4000 }, () => turn(1) !== undefined);
    expect(turns.flatMap((turned, i) => (turned ? [i + 1] : []))).toEqual([2000, 4000]);
  });

  it('gives one after each batch that holds as many on its own (the embedded store’s)', () => {
    const turn = turnsEvery(2000);
    expect([turn(2000), turn(2000), turn(5)].map((turning) => turning !== undefined)).toEqual([
      true,
      true,
      false,
    ]);
  });
});
