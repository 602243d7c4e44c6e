import { PET_STATUSES, type Pet, type PetStatus, type VersionedPet } from '../src/domain/pets.ts';
import type { ProjectedEvent, Projection } from './projection.ts';
import { firstIndexAfter, insertSorted, removeSorted } from './sorted-ids.ts';

/**
 * The pet-list read model: every live pet by id with the revision of its stream it reflects, and
 * ids in ascending order, overall and per status, so that a page is a binary search plus a slice.
 * Removed pets leave every list and are remembered by id (with their last revision), so that a
 * read can tell "removed" from "never existed". The few pets an order holds are noted apart.
 */
export type PetRecord = VersionedPet;

export type PetListState = {
  readonly byId: Map<number, PetRecord>;
  readonly removed: Map<number, number>;
  /** Pets an order holds (pending by that order), by pet id: the order's id. */
  readonly heldBy: Map<number, number>;
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
  /** Pairs: pet id, order id. */
  heldBy: number[];
};

export const petListProjection: Projection<PetListState> = {
  name: 'pet-list',
  version: 3,
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
        hold(state, event);
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
      heldBy: [],
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
    for (const [id, orderId] of state.heldBy) snapshot.heldBy.push(id, orderId);
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
    for (let i = 0; i < snapshot.heldBy.length; i += 2) {
      state.heldBy.set(snapshot.heldBy[i]!, snapshot.heldBy[i + 1]!);
    }
    return state;
  },
};

function initialState(): PetListState {
  return {
    byId: new Map(),
    removed: new Map(),
    heldBy: new Map(),
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

/** An order's status change of a pet: pending holds the pet, anything else lets it go. */
function hold(state: PetListState, event: ProjectedEvent): void {
  const { id, status, orderId } = event.data as { id: number; status: PetStatus; orderId?: number };
  const pet = state.byId.get(id);
  if (orderId === undefined || pet === undefined || event.revision <= pet.version) return;
  if (status === 'pending') state.heldBy.set(id, orderId);
  else state.heldBy.delete(id);
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
