import { describe, expect, it } from 'vitest';
import { SortedIds } from '../../projections/sorted-ids.ts';

/** The ids 1..count in an order that is anything but ascending (a fixed permutation). */
function shuffled(count: number): number[] {
  const ids = Array.from({ length: count }, (_, i) => i + 1);
  for (let i = ids.length - 1, seed = 7; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = seed % (i + 1);
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids;
}

function inserted(ids: readonly number[]): SortedIds {
  const sorted = new SortedIds();
  for (const id of ids) sorted.insert(id);
  return sorted;
}

const upTo = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

describe('sorted ids', () => {
  it('holds ids inserted in any order in ascending order, over many blocks', () => {
    const sorted = inserted(shuffled(5_000));
    expect([...sorted]).toEqual(upTo(5_000));
    expect(sorted.length).toBe(5_000);
  });

  it('removes ids from the middle of a long list, and leaves it as it was for an id it does not hold', () => {
    const sorted = inserted(upTo(5_000));
    for (const id of shuffled(5_000)) if (id % 3 === 0) sorted.remove(id);
    sorted.remove(3);
    sorted.remove(9_999);
    expect([...sorted]).toEqual(upTo(5_000).filter((id) => id % 3 !== 0));
    expect(sorted.length).toBe(3_334);
  });

  it('pages as a slice of the whole list would, across blocks, after any cursor', () => {
    const all = upTo(6_000).filter((id) => id % 4 !== 0);
    const sorted = inserted(shuffled(6_000).filter((id) => id % 4 !== 0));
    const cases: [number | undefined, number][] = [
      [undefined, 20],
      [undefined, 0],
      [1_022, 5],
      [1_536, 1_100],
      [5_990, 100],
      [5_999, 1],
      [6_000, 10],
    ];
    for (const [after, limit] of cases) {
      const start = after === undefined ? 0 : all.findIndex((id) => id > after);
      const from = start === -1 ? all.length : start;
      expect(sorted.page(after, limit)).toEqual({
        ids: all.slice(from, from + limit),
        hasMore: from + limit < all.length,
      });
    }
  });

  it('builds from ascending ids the same list as inserting them', () => {
    const ids = upTo(3_000).map((id) => id * 2);
    const built = SortedIds.fromAscending(ids);
    built.insert(1_001);
    built.remove(2);
    expect([...built]).toEqual([...ids.slice(1, 500), 1_001, ...ids.slice(500)]);
    expect(built.page(998, 3)).toEqual({ ids: [1_000, 1_001, 1_002], hasMore: true });
  });
});
