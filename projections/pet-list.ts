import { PET_STATUSES, type Pet, type PetStatus, type VersionedPet } from '../src/domain/pets.ts';
import type { ProjectedEvent, Projection } from './projection.ts';

/**
 * The pet-list read model: every live pet by id with the revision of its stream it reflects, and
 * ids in ascending order, overall and per status, so that a page is a binary search plus a slice.
 * Removed pets leave every list and are remembered by id (with their last revision), so that a
 * read can tell "removed" from "never existed".
 */
export type PetRecord = VersionedPet;

export type PetListState = {
  readonly byId: Map<number, PetRecord>;
  readonly removed: Map<number, number>;
  readonly ids: number[];
  readonly idsByStatus: Record<PetStatus, number[]>;
};

const STATUS_INDEX = Object.fromEntries(PET_STATUSES.map((status, i) => [status, i])) as Record<
  PetStatus,
  number
>;

/**
 * Columnar, so that a million pets serialise and parse quickly. Status is an index into PET_STATUSES,
 * or -1. `removed` holds pairs: id, version.
 */
type PetListSnapshot = {
  ids: number[];
  names: string[];
  categoryIds: number[];
  statuses: number[];
  versions: number[];
  removed: number[];
};

export const petListProjection: Projection<PetListState> = {
  name: 'pet-list',
  version: 2,
  initialState,
  evolve(state: PetListState, event: ProjectedEvent): PetListState {
    switch (event.type) {
      case 'PetCreated':
        if (!state.byId.has(event.data.id as number) && !state.removed.has(event.data.id as number)) {
          add(state, record(event.data as Pet, event.revision));
        }
        return state;
      case 'PetRenamed':
        return change(state, event, (pet) => ({ ...pet, name: event.data.name as string }));
      case 'PetRecategorised':
        return change(state, event, (pet) => ({ ...pet, categoryId: event.data.categoryId as number }));
      case 'PetStatusChanged':
        return change(state, event, (pet) => ({ ...pet, status: event.data.status as PetStatus }));
      case 'PetRemoved':
        return remove(state, event);
      default:
        return state;
    }
  },
  toSnapshot(state: PetListState): PetListSnapshot {
    // Preallocated columns in id order: this runs on the event loop, so every millisecond counts.
    const count = state.ids.length;
    const snapshot: PetListSnapshot = {
      ids: new Array<number>(count),
      names: new Array<string>(count),
      categoryIds: new Array<number>(count),
      statuses: new Array<number>(count),
      versions: new Array<number>(count),
      removed: [],
    };
    for (let i = 0; i < count; i++) {
      const pet = state.byId.get(state.ids[i]!)!;
      snapshot.ids[i] = pet.id;
      snapshot.names[i] = pet.name;
      snapshot.categoryIds[i] = pet.categoryId;
      snapshot.statuses[i] = pet.status === undefined ? -1 : STATUS_INDEX[pet.status];
      snapshot.versions[i] = pet.version;
    }
    for (const [id, version] of state.removed) snapshot.removed.push(id, version);
    return snapshot;
  },
  fromSnapshot(raw: unknown): PetListState {
    const snapshot = raw as PetListSnapshot;
    const state = initialState();
    for (let i = 0; i < snapshot.ids.length; i++) {
      add(state, {
        id: snapshot.ids[i]!,
        name: snapshot.names[i]!,
        categoryId: snapshot.categoryIds[i]!,
        status: PET_STATUSES[snapshot.statuses[i]!],
        version: snapshot.versions[i]!,
      });
    }
    for (let i = 0; i < snapshot.removed.length; i += 2) {
      state.removed.set(snapshot.removed[i]!, snapshot.removed[i + 1]!);
    }
    return state;
  },
};

function initialState(): PetListState {
  return {
    byId: new Map(),
    removed: new Map(),
    ids: [],
    idsByStatus: { available: [], pending: [], sold: [] },
  };
}

/** One shape for every record (status present, if undefined), so that the objects share a hidden class. */
function record(pet: Pet, revision: bigint): PetRecord {
  return {
    id: pet.id,
    name: pet.name,
    categoryId: pet.categoryId,
    status: pet.status,
    version: Number(revision),
  };
}

function add(state: PetListState, pet: PetRecord): void {
  state.byId.set(pet.id, pet);
  insertSorted(state.ids, pet.id);
  if (pet.status !== undefined) insertSorted(state.idsByStatus[pet.status], pet.id);
}

/** Replaces a live pet by its changed copy, unless the event is one the record already reflects. */
function change(
  state: PetListState,
  event: ProjectedEvent,
  changed: (pet: PetRecord) => PetRecord,
): PetListState {
  const pet = state.byId.get(event.data.id as number);
  if (pet === undefined || event.revision <= pet.version) return state;
  const next = { ...changed(pet), version: Number(event.revision) };
  state.byId.set(pet.id, next);
  if (next.status !== pet.status) {
    if (pet.status !== undefined) removeSorted(state.idsByStatus[pet.status], pet.id);
    if (next.status !== undefined) insertSorted(state.idsByStatus[next.status], pet.id);
  }
  return state;
}

function remove(state: PetListState, event: ProjectedEvent): PetListState {
  const pet = state.byId.get(event.data.id as number);
  if (pet === undefined || event.revision <= pet.version) return state;
  state.byId.delete(pet.id);
  removeSorted(state.ids, pet.id);
  if (pet.status !== undefined) removeSorted(state.idsByStatus[pet.status], pet.id);
  state.removed.set(pet.id, Number(event.revision));
  return state;
}

/** Ids mostly arrive in ascending order (one process, one block), so this is almost always a push. */
function insertSorted(ids: number[], id: number): void {
  if (ids.length === 0 || ids[ids.length - 1]! < id) {
    ids.push(id);
    return;
  }
  ids.splice(firstIndexAfter(ids, id - 1), 0, id);
}

function removeSorted(ids: number[], id: number): void {
  const index = firstIndexAfter(ids, id - 1);
  if (ids[index] === id) ids.splice(index, 1);
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
): { pets: PetRecord[]; hasMore: boolean } {
  const ids = query.status === undefined ? state.ids : state.idsByStatus[query.status];
  const start = query.after === undefined ? 0 : firstIndexAfter(ids, query.after);
  const pageIds = ids.slice(start, start + query.limit);
  return { pets: pageIds.map((id) => state.byId.get(id)!), hasMore: start + query.limit < ids.length };
}
