import { describe, expect, it } from 'vitest';
import { pagePets, petListProjection, type PetListState } from '../../projections/pet-list.ts';
import type { Pet } from '../../src/domain/pets.ts';

function given(...pets: Pet[]): PetListState {
  return pets.reduce(
    (state, pet) => petListProjection.evolve(state, { type: 'PetCreated', data: pet }),
    petListProjection.initialState(),
  );
}

const rex: Pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const tom: Pet = { id: 2, name: 'Tom', categoryId: 2 };
const kit: Pet = { id: 3, name: 'Kit', categoryId: 2, status: 'sold' };
const ann: Pet = { id: 4, name: 'Ann', categoryId: 3, status: 'available' };

describe('pet-list projection', () => {
  it('adds a created pet', () => {
    expect(given(rex).byId.get(1)).toEqual(rex);
  });

  it('ignores events it does not project', () => {
    const state = petListProjection.evolve(given(rex), {
      type: 'PetIdBlockReserved',
      data: { first: 1, last: 9 },
    });
    expect(state.ids).toEqual([1]);
  });

  it('keeps pets in ascending id order whatever order they arrive in', () => {
    expect(given(kit, rex, ann, tom).ids).toEqual([1, 2, 3, 4]);
  });

  it('keeps a pet without status out of every status index', () => {
    expect(given(tom).idsByStatus).toEqual({ available: [], pending: [], sold: [] });
  });

  it('applies a replayed event once', () => {
    expect(given(rex, rex).ids).toEqual([1]);
  });

  it('survives a snapshot round trip, status or none', () => {
    const state = given(rex, tom, kit, ann);
    const restored = petListProjection.fromSnapshot(
      JSON.parse(JSON.stringify(petListProjection.toSnapshot(state))),
    );
    expect(restored).toEqual(state);
  });
});

describe('pagePets', () => {
  const state = given(rex, tom, kit, ann);

  it('returns the first page and says there is more', () => {
    expect(pagePets(state, { limit: 2 })).toEqual({ pets: [rex, tom], hasMore: true });
  });

  it('continues after a cursor', () => {
    expect(pagePets(state, { limit: 2, after: 2 })).toEqual({ pets: [kit, ann], hasMore: false });
  });

  it('filters by status', () => {
    expect(pagePets(state, { limit: 10, status: 'available' })).toEqual({ pets: [rex, ann], hasMore: false });
  });

  it('continues a filtered list after a cursor that is not in it', () => {
    expect(pagePets(state, { limit: 10, status: 'available', after: 2 })).toEqual({
      pets: [ann],
      hasMore: false,
    });
  });
});
