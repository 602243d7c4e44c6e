import { describe, expect, it } from 'vitest';
import { pagePets, petListProjection, type PetListState } from '../../projections/pet-list.ts';
import type { Pet, PetEvent } from '../../src/domain/pets.ts';

/** The projection after these events, each at the revision given (the stream's, for its pet). */
function given(
  ...events: [PetEvent | { type: string; data: Record<string, unknown> }, number][]
): PetListState {
  return events.reduce(
    (state, [event, revision]) => petListProjection.evolve(state, { ...event, revision: BigInt(revision) }),
    petListProjection.initialState(),
  );
}
const created = (pet: Pet): [PetEvent, number] => [{ type: 'PetCreated', data: pet }, 0];

const rex: Pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const tom: Pet = { id: 2, name: 'Tom', categoryId: 2 };
const kit: Pet = { id: 3, name: 'Kit', categoryId: 2, status: 'sold' };
const ann: Pet = { id: 4, name: 'Ann', categoryId: 3, status: 'available' };
const v0 = (pet: Pet) => ({ ...pet, version: 0 });
/** The id lists of a state, as arrays. */
const lists = (state: PetListState) => ({
  ids: [...state.ids],
  available: [...state.idsByStatus.available],
  pending: [...state.idsByStatus.pending],
  sold: [...state.idsByStatus.sold],
});

describe('pet-list projection', () => {
  it('adds a created pet at version 0', () => {
    expect(given(created(rex)).byId.get(1)).toEqual({ ...rex, version: 0 });
  });

  it('ignores events it does not project', () => {
    const state = given(created(rex), [{ type: 'PetIdBlockReserved', data: { first: 1, last: 9 } }, 0]);
    expect([...state.ids]).toEqual([1]);
  });

  it('keeps pets in ascending id order whatever order they arrive in', () => {
    expect([...given(created(kit), created(rex), created(ann), created(tom)).ids]).toEqual([1, 2, 3, 4]);
  });

  it('keeps a pet without status out of every status index', () => {
    expect(lists(given(created(tom)))).toEqual({ ids: [2], available: [], pending: [], sold: [] });
  });

  it('applies a replayed creation once', () => {
    expect([...given(created(rex), created(rex)).ids]).toEqual([1]);
  });

  it('renames and recategorises a pet, each change one version more', () => {
    const state = given(
      created(rex),
      [{ type: 'PetRenamed', data: { id: 1, name: 'Max', previousName: 'Rex' } }, 1],
      [{ type: 'PetRecategorised', data: { id: 1, categoryId: 9, previousCategoryId: 1 } }, 2],
    );
    expect(state.byId.get(1)).toEqual({ ...rex, name: 'Max', categoryId: 9, version: 2 });
  });

  it('moves a pet whose status changed from one status index to the other', () => {
    const state = given(created(rex), created(ann), [
      { type: 'PetStatusChanged', data: { id: 1, status: 'pending', previousStatus: 'available' } },
      1,
    ]);
    expect(lists(state)).toEqual({ ids: [1, 4], available: [4], pending: [1], sold: [] });
    expect(state.byId.get(1)).toEqual({ ...rex, status: 'pending', version: 1 });
  });

  it('applies a replayed change once', () => {
    const renamed: [PetEvent, number] = [
      { type: 'PetRenamed', data: { id: 1, name: 'Max', previousName: 'Rex' } },
      1,
    ];
    const state = given(created(rex), renamed, [
      { type: 'PetRenamed', data: { id: 1, name: 'Old', previousName: 'Rex' } },
      1,
    ]);
    expect(state.byId.get(1)?.name).toBe('Max');
  });

  it('takes a removed pet out of every list and remembers its last version', () => {
    const state = given(created(rex), created(ann), [
      { type: 'PetRemoved', data: { id: 1, reason: 'adopted' } },
      1,
    ]);
    expect([state.byId.has(1), lists(state)]).toEqual([
      false,
      { ids: [4], available: [4], pending: [], sold: [] },
    ]);
    expect(state.removed.get(1)).toBe(1);
  });

  it('survives a snapshot round trip: statuses or none, versions and removed pets', () => {
    const state = given(
      created(rex),
      created(tom),
      created(kit),
      created(ann),
      [{ type: 'PetRenamed', data: { id: 2, name: 'Tim', previousName: 'Tom' } }, 1],
      [{ type: 'PetRemoved', data: { id: 3 } }, 1],
    );
    const restored = roundTrip(state);
    expect(restored).toEqual(state);
    expect(lists(restored)).toEqual(lists(state));
  });

  it('restores pets created out of id order (the blocks of several processes) with sorted indexes', () => {
    const state = given(created(kit), created(rex), created(ann), created(tom));
    const restored = roundTrip(state);
    expect(lists(restored)).toEqual({ ids: [1, 2, 3, 4], available: [1, 4], pending: [], sold: [3] });
    expect([...restored.byId.values()].map((pet) => pet.id)).toEqual([1, 2, 3, 4]);
    expect(restored).toEqual(state);
  });

  it('restores a pet a snapshot lists twice once, as its last record, in one status index', () => {
    const restored = petListProjection.fromSnapshot([
      {
        ids: [1, 2, 2],
        names: ['Rex', 'Tom', 'Tim'],
        categoryIds: [1, 2, 2],
        statuses: [0, 0, 2],
        versions: [0, 0, 1],
      },
      { removed: [], heldBy: [] },
    ]);
    expect(lists(restored)).toEqual({ ids: [1, 2], available: [1], pending: [], sold: [2] });
  });

  it('round-trips a catalogue of several parts', () => {
    const many = Array.from({ length: 10_000 }, (_, i) =>
      created({ id: i + 1, name: `Pet ${i + 1}`, categoryId: 1 }),
    );
    const state = given(...many);
    const parts = [...petListProjection.toSnapshot(state)];
    expect(parts).toHaveLength(6); // 4 × 2048 + 1808 pets, then the removed ones
    const restored = roundTrip(state);
    expect(restored).toEqual(state);
    expect(lists(restored).ids).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1));
  });

  it('snapshots the state as it was when asked, however many events are applied before the parts are made', () => {
    const state = given(created(rex), created(tom));
    const parts = petListProjection.toSnapshot(state);
    petListProjection.evolve(state, { type: 'PetRenamed', data: { id: 1, name: 'Max' }, revision: 1n });
    petListProjection.evolve(state, { type: 'PetRemoved', data: { id: 2 }, revision: 1n });
    petListProjection.evolve(state, { type: 'PetCreated', data: kit, revision: 0n });
    const restored = petListProjection.fromSnapshot(JSON.parse(JSON.stringify([...parts])));
    expect(restored).toEqual(given(created(rex), created(tom)));
    expect(lists(restored)).toEqual({ ids: [1, 2], available: [1], pending: [], sold: [] });
  });
});

function roundTrip(state: PetListState): PetListState {
  return petListProjection.fromSnapshot(JSON.parse(JSON.stringify([...petListProjection.toSnapshot(state)])));
}

describe('pagePets', () => {
  const state = given(created(rex), created(tom), created(kit), created(ann));

  it('returns the first page and says there is more', () => {
    expect(pagePets(state, { limit: 2 })).toEqual({ pets: [v0(rex), v0(tom)], hasMore: true });
  });

  it('continues after a cursor', () => {
    expect(pagePets(state, { limit: 2, after: 2 })).toEqual({ pets: [v0(kit), v0(ann)], hasMore: false });
  });

  it('filters by status', () => {
    expect(pagePets(state, { limit: 10, status: 'available' })).toEqual({
      pets: [v0(rex), v0(ann)],
      hasMore: false,
    });
  });

  it('continues a filtered list after a cursor that is not in it', () => {
    expect(pagePets(state, { limit: 10, status: 'available', after: 2 })).toEqual({
      pets: [v0(ann)],
      hasMore: false,
    });
  });
});
