import { describe, expect, it } from 'vitest';
import {
  decideReserveBlock,
  IdsExhaustedError,
  lastReservedId,
  ORDER_IDS,
  PET_IDS,
} from '../../src/domain/id-blocks.ts';

describe('decideReserveBlock', () => {
  it('reserves the first block from 1', () => {
    expect(decideReserveBlock(PET_IDS, 0, 100)).toEqual({
      type: 'PetIdBlockReserved',
      data: { first: 1, last: 100 },
    });
  });

  it('reserves the block right after the last reserved id', () => {
    expect(decideReserveBlock(PET_IDS, 300, 100).data).toEqual({ first: 301, last: 400 });
  });

  it('never reserves past 2^53−1', () => {
    expect(decideReserveBlock(PET_IDS, Number.MAX_SAFE_INTEGER - 10, 100).data).toEqual({
      first: Number.MAX_SAFE_INTEGER - 9,
      last: Number.MAX_SAFE_INTEGER,
    });
  });

  it('fails when every id is reserved', () => {
    expect(() => decideReserveBlock(PET_IDS, Number.MAX_SAFE_INTEGER, 100)).toThrow(IdsExhaustedError);
  });

  it('says which kind of id ran out', () => {
    expect(() => decideReserveBlock(ORDER_IDS, Number.MAX_SAFE_INTEGER, 100)).toThrow(
      'No order ids are left below 9007199254740991.',
    );
  });
});

describe('lastReservedId', () => {
  it('is the highest last id of all reservations, 0 for none', () => {
    const reserved = (first: number, last: number) => ({ type: 'PetIdBlockReserved', data: { first, last } });
    expect(lastReservedId(PET_IDS, [])).toBe(0);
    expect(lastReservedId(PET_IDS, [reserved(1, 100), reserved(101, 200)])).toBe(200);
  });

  it('counts only the reservations of its own kind of id', () => {
    const events = [
      { type: 'PetIdBlockReserved', data: { first: 1, last: 100 } },
      { type: 'OrderIdBlockReserved', data: { first: 1, last: 500 } },
    ];
    expect([lastReservedId(PET_IDS, events), lastReservedId(ORDER_IDS, events)]).toEqual([100, 500]);
  });
});
