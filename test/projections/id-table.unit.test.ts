import { describe, expect, it } from 'vitest';
import { IdTable } from '../../projections/id-table.ts';

describe('IdTable', () => {
  it('gets, replaces and deletes records by id, counting them', () => {
    const table = new IdTable<string>();
    table.set(7, 'a');
    table.set(7, 'b');
    table.set(90_000, 'c');
    expect([table.get(7), table.get(90_000), table.get(8), table.size]).toEqual(['b', 'c', undefined, 2]);
    expect([table.delete(7), table.delete(7), table.has(7), table.size]).toEqual([true, false, false, 1]);
  });

  it('iterates in ascending id order across pages, whatever order the records came in', () => {
    const table = new IdTable<number>();
    for (const id of [10_000, 3, 5000, 1, 4097]) table.set(id, id);
    expect([...table.values()]).toEqual([1, 3, 4097, 5000, 10_000]);
  });

  it('hands out its pages in id order, and they keep the records of that moment whatever changes after', () => {
    const table = new IdTable<string>();
    for (const [id, record] of [
      [5000, 'c'],
      [1, 'a'],
      [2, 'b'],
    ] as const)
      table.set(id, record);
    const pages = table.frozenPages();
    table.set(1, 'changed');
    table.delete(2);
    table.set(5001, 'new');
    const records = (page: readonly (string | undefined)[]) => page.filter((record) => record !== undefined);
    expect(pages.map(records)).toEqual([['a', 'b'], ['c']]);
    expect([...table.values()]).toEqual(['changed', 'c', 'new']);
  });

  it('refuses what is not an id', () => {
    const table = new IdTable<string>();
    expect(() => table.set(1.5, 'x')).toThrow(RangeError);
    expect(() => table.set(-1, 'x')).toThrow(RangeError);
    expect([table.get(1.5), table.get(-1)]).toEqual([undefined, undefined]);
  });
});
