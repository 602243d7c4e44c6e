import { KNOWN_EVENT_TYPES } from '../src/domain/event-types.ts';
import { PET_STATUSES, type Pet, type PetStatus, type VersionedPet } from '../src/domain/pets.ts';
import { IdTable } from './id-table.ts';
import type { ProjectedEvent, Projection } from './projection.ts';
import { SortedIds } from './sorted-ids.ts';

/**
 * The pet-list read model: every live pet by id with the revision of its stream it reflects, and
 * ids in ascending order, overall and per status, so that a page is a binary search plus a slice.
 * Removed pets leave every list and are remembered by id (with their last revision), so that a
 * read can tell "removed" from "never existed". The few pets an order holds are noted apart.
 */
export type PetRecord = VersionedPet;

export type PetListState = {
  readonly byId: IdTable<PetRecord>;
  readonly removed: Map<number, number>;
  /** Pets an order holds (pending by that order), by pet id: the order's id. */
  readonly heldBy: Map<number, number>;
  readonly ids: SortedIds;
  readonly idsByStatus: Record<PetStatus, SortedIds>;
};

const STATUS_INDEX = Object.fromEntries(PET_STATUSES.map((status, i) => [status, i])) as Record<
  PetStatus,
  number
>;
/** A snapshot's status code, plus one, to the status: -1 (none) reads index 0, never a negative one. */
const STATUS_OF_CODE: readonly (PetStatus | undefined)[] = [undefined, ...PET_STATUSES];

/**
 * Snapshot parts: columns of up to SNAPSHOT_PART_PETS pets (columnar, so that a million pets
 * serialise and parse quickly; status is an index into PET_STATUSES, or -1), in id order (earlier
 * code wrote them in the order the pets were created: both read back), then the removed pets and
 * the pets orders hold.
 */
type PetsPart = {
  ids: number[];
  names: string[];
  categoryIds: number[];
  statuses: number[];
  versions: number[];
};
/** Pairs: id, last version of each removed pet; id, order id of each pet an order holds. */
type RemovedPart = { removed: number[]; heldBy: number[] };

const SNAPSHOT_PART_PETS = 2048;

export const petListProjection: Projection<PetListState> = {
  name: 'pet-list',
  version: 4,
  knownEventTypes: KNOWN_EVENT_TYPES,
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
  toSnapshot(state: PetListState): Iterable<PetsPart | RemovedPart> {
    // Records are replaced, never changed in place, and the table copies a page it handed out
    // before changing it: its pages are the state at this checkpoint, taken without copying a
    // record, and the columns are made part by part as the snapshot is written.
    const removed: number[] = [];
    for (const [id, version] of state.removed) removed.push(id, version);
    const heldBy: number[] = [];
    for (const [id, orderId] of state.heldBy) heldBy.push(id, orderId);
    return snapshotParts(state.byId.frozenRecords(), removed, heldBy);
  },
  fromSnapshot(parts: Iterable<unknown>): PetListState {
    const state = initialState();
    const allIds: number[] = [];
    const idsByStatus: Record<PetStatus, number[]> = { available: [], pending: [], sold: [] };
    for (const part of parts as Iterable<PetsPart | RemovedPart>) {
      if ('removed' in part) {
        for (let i = 0; i < part.removed.length; i += 2)
          state.removed.set(part.removed[i]!, part.removed[i + 1]!);
        for (let i = 0; i < part.heldBy.length; i += 2)
          state.heldBy.set(part.heldBy[i]!, part.heldBy[i + 1]!);
        continue;
      }
      const { ids, names, categoryIds, statuses, versions } = part;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const status = STATUS_OF_CODE[statuses[i]! + 1];
        state.byId.set(id, {
          id,
          name: names[i]!,
          categoryId: categoryIds[i]!,
          status,
          version: versions[i]!,
        });
        allIds.push(id);
        if (status !== undefined) idsByStatus[status].push(id);
      }
    }
    // No code writes a pet twice. A file that does is read as the table holds it (the pet's last
    // record, once), as toSnapshot would write it again and verify compares it: not listed twice.
    if (allIds.length !== state.byId.size) return { ...state, ...indexesOf(state.byId.values()) };
    // Snapshots written by earlier code list pets in creation order: ids ascend but for the
    // interleaved blocks of several processes.
    const index = (unsorted: number[]) => SortedIds.fromAscending(sortIfNeeded(unsorted));
    return {
      ...state,
      ids: index(allIds),
      idsByStatus: {
        available: index(idsByStatus.available),
        pending: index(idsByStatus.pending),
        sold: index(idsByStatus.sold),
      },
    };
  },
};

/** The indexes of pets given in ascending id order. */
function indexesOf(pets: Iterable<PetRecord>): Pick<PetListState, 'ids' | 'idsByStatus'> {
  const ids: number[] = [];
  const byStatus: Record<PetStatus, number[]> = { available: [], pending: [], sold: [] };
  for (const pet of pets) {
    ids.push(pet.id);
    if (pet.status !== undefined) byStatus[pet.status].push(pet.id);
  }
  return {
    ids: SortedIds.fromAscending(ids),
    idsByStatus: {
      available: SortedIds.fromAscending(byStatus.available),
      pending: SortedIds.fromAscending(byStatus.pending),
      sold: SortedIds.fromAscending(byStatus.sold),
    },
  };
}

function* snapshotParts(
  pets: Iterable<PetRecord>,
  removed: number[],
  heldBy: number[],
): Generator<PetsPart | RemovedPart> {
  let part = emptyPart();
  for (const pet of pets) {
    part.ids.push(pet.id);
    part.names.push(pet.name);
    part.categoryIds.push(pet.categoryId);
    part.statuses.push(pet.status === undefined ? -1 : STATUS_INDEX[pet.status]);
    part.versions.push(pet.version);
    if (part.ids.length === SNAPSHOT_PART_PETS) {
      yield part;
      part = emptyPart();
    }
  }
  if (part.ids.length > 0) yield part;
  yield { removed, heldBy };
}

function emptyPart(): PetsPart {
  return { ids: [], names: [], categoryIds: [], statuses: [], versions: [] };
}

function sortIfNeeded(ids: number[]): number[] {
  for (let i = 1; i < ids.length; i++) {
    if (ids[i - 1]! > ids[i]!) return ids.sort((a, b) => a - b);
  }
  return ids;
}

function initialState(): PetListState {
  return {
    byId: new IdTable(),
    removed: new Map(),
    heldBy: new Map(),
    ids: new SortedIds(),
    idsByStatus: { available: new SortedIds(), pending: new SortedIds(), sold: new SortedIds() },
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
  state.ids.insert(pet.id);
  if (pet.status !== undefined) state.idsByStatus[pet.status].insert(pet.id);
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
    if (pet.status !== undefined) state.idsByStatus[pet.status].remove(pet.id);
    if (next.status !== undefined) state.idsByStatus[next.status].insert(pet.id);
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
  state.ids.remove(pet.id);
  if (pet.status !== undefined) state.idsByStatus[pet.status].remove(pet.id);
  state.removed.set(pet.id, Number(event.revision));
  return state;
}

/** Pets in ascending id order after `after`, at most `limit`; `hasMore` tells whether a next page exists. */
export function pagePets(
  state: PetListState,
  query: { readonly status?: PetStatus; readonly after?: number; readonly limit: number },
): { pets: PetRecord[]; hasMore: boolean } {
  const index = query.status === undefined ? state.ids : state.idsByStatus[query.status];
  const { ids, hasMore } = index.page(query.after, query.limit);
  return { pets: ids.map((id) => state.byId.get(id)!), hasMore };
}
