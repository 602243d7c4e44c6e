import { PET_STATUSES, type Pet, type PetStatus } from '../src/domain/pets.ts';
import type { ProjectedEvent, Projection } from './projection.ts';

/**
 * The pet-list read model: every pet by id, and ids in ascending order, overall and per status,
 * so that a page is a binary search plus a slice.
 */
export type PetListState = {
  readonly byId: Map<number, Pet>;
  readonly ids: number[];
  readonly idsByStatus: Record<PetStatus, number[]>;
};

const STATUS_INDEX = Object.fromEntries(PET_STATUSES.map((status, i) => [status, i])) as Record<
  PetStatus,
  number
>;

/** Columnar, so that a million pets serialise and parse quickly. Status is an index into PET_STATUSES, or -1. */
type PetListSnapshot = { ids: number[]; names: string[]; categoryIds: number[]; statuses: number[] };

export const petListProjection: Projection<PetListState> = {
  name: 'pet-list',
  version: 1,
  initialState,
  evolve(state: PetListState, event: ProjectedEvent): PetListState {
    if (event.type !== 'PetCreated') return state;
    addPet(state, petFromEvent(event.data));
    return state;
  },
  toSnapshot(state: PetListState): PetListSnapshot {
    // Preallocated columns in id order: this runs on the event loop, so every millisecond counts.
    const count = state.ids.length;
    const snapshot: PetListSnapshot = {
      ids: new Array<number>(count),
      names: new Array<string>(count),
      categoryIds: new Array<number>(count),
      statuses: new Array<number>(count),
    };
    for (let i = 0; i < count; i++) {
      const pet = state.byId.get(state.ids[i]!)!;
      snapshot.ids[i] = pet.id;
      snapshot.names[i] = pet.name;
      snapshot.categoryIds[i] = pet.categoryId;
      snapshot.statuses[i] = pet.status === undefined ? -1 : STATUS_INDEX[pet.status];
    }
    return snapshot;
  },
  fromSnapshot(raw: unknown): PetListState {
    const snapshot = raw as PetListSnapshot;
    const state = initialState();
    for (let i = 0; i < snapshot.ids.length; i++) {
      const status = PET_STATUSES[snapshot.statuses[i]!];
      const pet: Pet = {
        id: snapshot.ids[i]!,
        name: snapshot.names[i]!,
        categoryId: snapshot.categoryIds[i]!,
      };
      addPet(state, status === undefined ? pet : { ...pet, status });
    }
    return state;
  },
};

function initialState(): PetListState {
  return { byId: new Map(), ids: [], idsByStatus: { available: [], pending: [], sold: [] } };
}

/** PetCreated's data (schema version 1) is the pet itself: kept as is, not copied. */
function petFromEvent(data: Readonly<Record<string, unknown>>): Pet {
  return data as unknown as Pet;
}

function addPet(state: PetListState, pet: Pet): void {
  if (state.byId.has(pet.id)) return;
  state.byId.set(pet.id, pet);
  insertSorted(state.ids, pet.id);
  if (pet.status !== undefined) insertSorted(state.idsByStatus[pet.status], pet.id);
}

/** Ids mostly arrive in ascending order (one process, one block), so this is almost always a push. */
function insertSorted(ids: number[], id: number): void {
  if (ids.length === 0 || ids[ids.length - 1]! < id) {
    ids.push(id);
    return;
  }
  ids.splice(firstIndexAfter(ids, id - 1), 0, id);
}

/** Index of the first id greater than `after`, by binary search. */
export function firstIndexAfter(ids: readonly number[], after: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ids[mid]! <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Pets in ascending id order after `after`, at most `limit`; `hasMore` tells whether a next page exists. */
export function pagePets(
  state: PetListState,
  query: { readonly status?: PetStatus; readonly after?: number; readonly limit: number },
): { pets: Pet[]; hasMore: boolean } {
  const ids = query.status === undefined ? state.ids : state.idsByStatus[query.status];
  const start = query.after === undefined ? 0 : firstIndexAfter(ids, query.after);
  const pageIds = ids.slice(start, start + query.limit);
  return { pets: pageIds.map((id) => state.byId.get(id)!), hasMore: start + query.limit < ids.length };
}
