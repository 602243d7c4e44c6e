import { AppError, NotFoundError } from '../shared/errors.ts';
import { MAX_ID } from './id-blocks.ts';

/**
 * The pet aggregate, pure: validation, `decide*` from a command and the pet's state to events, and
 * `evolvePet` folding an event into the state. No I/O; time and ids come in as arguments.
 */

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** Ids are int64 on the wire, and never above 2^53−1 so that every JSON client reads them exactly. */
export const MAX_PET_ID = MAX_ID;

export type NewPet = {
  readonly name: string;
  readonly categoryId: number;
  /** Absent when the client gave none: no default status is invented. */
  readonly status?: PetStatus;
};

export type Pet = NewPet & { readonly id: number };

/** A pet as of a revision of its stream: `version` is that revision (0 when created, +1 per change). */
export type VersionedPet = Pet & { readonly version: number };

/** A JSON merge patch (RFC 7396) of a pet, validated: only what it changes. */
export type PetPatch = { readonly name?: string; readonly categoryId?: number; readonly status?: PetStatus };

export const PET_CREATED_SCHEMA_VERSION = 1;
export type PetCreated = { readonly type: 'PetCreated'; readonly data: Pet };
export type PetRenamed = {
  readonly type: 'PetRenamed';
  readonly data: { readonly id: number; readonly name: string; readonly previousName: string };
};
export type PetRecategorised = {
  readonly type: 'PetRecategorised';
  readonly data: { readonly id: number; readonly categoryId: number; readonly previousCategoryId: number };
};
export type PetStatusChanged = {
  readonly type: 'PetStatusChanged';
  readonly data: {
    readonly id: number;
    readonly status: PetStatus;
    /** Absent when the pet had no status. */
    readonly previousStatus?: PetStatus;
    /** The order that moved it, when an order did. */
    readonly orderId?: number;
  };
};
export type PetRemoved = {
  readonly type: 'PetRemoved';
  readonly data: { readonly id: number; readonly reason?: string };
};

export type PetEvent = PetCreated | PetRenamed | PetRecategorised | PetStatusChanged | PetRemoved;
export const PET_EVENT_TYPES: ReadonlySet<string> = new Set<PetEvent['type']>([
  'PetCreated',
  'PetRenamed',
  'PetRecategorised',
  'PetStatusChanged',
  'PetRemoved',
]);

/**
 * What a decision needs to know of a pet: nothing before it was created. `heldBy` is the order that
 * holds it (pending by an order, until that order completes or is cancelled).
 */
export type PetState =
  | { readonly kind: 'live'; readonly pet: Pet; readonly heldBy?: number }
  | { readonly kind: 'removed' }
  | undefined;

export const petStreamName = (id: number): string => `pet-${id}`;

/**
 * Which status may follow which. Sold is final: a pet that comes back is added as a new pet. A pet
 * created without a status may be given any. Setting the status a pet already has changes nothing.
 */
export const STATUS_TRANSITIONS: Readonly<Record<PetStatus | 'none', readonly PetStatus[]>> = {
  none: ['available', 'pending', 'sold'],
  available: ['pending', 'sold'],
  pending: ['available', 'sold'],
  sold: [],
};

export class PetRemovedError extends AppError {
  constructor(id: number) {
    super('pet_removed', 404, `Pet ${id} was removed; its history stays in the store.`);
  }
}

/** A pet an order holds changes status, or leaves, only through that order. */
export class PetHeldByOrderError extends AppError {
  constructor(id: number, orderId: number) {
    super(
      'pet_held_by_order',
      409,
      `Pet ${id} is held by order ${orderId}: complete or cancel the order to change its status or remove it.`,
    );
  }
}

export class InvalidStatusTransitionError extends AppError {
  constructor(from: PetStatus | undefined, to: PetStatus) {
    const allowed = STATUS_TRANSITIONS[from ?? 'none'];
    super(
      'invalid_status_transition',
      409,
      `A pet ${from === undefined ? 'without a status' : `that is ${from}`} cannot become ${to}` +
        (allowed.length === 0 ? '; it is final.' : `; it may become ${allowed.join(' or ')}.`),
    );
  }
}

/** A new pet, validated by `validateNewPet` (pet-rules.ts), gets its id. */
export function decideCreatePet(pet: NewPet, newId: number): PetCreated {
  return { type: 'PetCreated', data: { id: newId, ...pet } };
}

/** The events a patch makes, in the order name, category, status; none when it changes nothing. */
export function decideUpdatePet(state: PetState, id: number, patch: PetPatch): PetEvent[] {
  const { pet } = live(state, id);
  const events: PetEvent[] = [];
  if (patch.name !== undefined && patch.name !== pet.name) {
    events.push({ type: 'PetRenamed', data: { id, name: patch.name, previousName: pet.name } });
  }
  if (patch.categoryId !== undefined && patch.categoryId !== pet.categoryId) {
    events.push({
      type: 'PetRecategorised',
      data: { id, categoryId: patch.categoryId, previousCategoryId: pet.categoryId },
    });
  }
  if (patch.status !== undefined) events.push(...decideChangeStatus(state, id, patch.status));
  return events;
}

/**
 * A status change by the transition table; none when the pet has that status already. Only the
 * order that holds a pet may change its status (`orderId`); an order's change records its id.
 */
export function decideChangeStatus(
  state: PetState,
  id: number,
  status: PetStatus,
  orderId?: number,
): PetStatusChanged[] {
  const { pet, heldBy } = live(state, id);
  if (pet.status === status) return []; // no change, so none the holding order need allow
  if (heldBy !== undefined && heldBy !== orderId) throw new PetHeldByOrderError(id, heldBy);
  if (!STATUS_TRANSITIONS[pet.status ?? 'none'].includes(status)) {
    throw new InvalidStatusTransitionError(pet.status, status);
  }
  return [
    {
      type: 'PetStatusChanged',
      data: {
        id,
        status,
        ...(pet.status !== undefined && { previousStatus: pet.status }),
        ...(orderId !== undefined && { orderId }),
      },
    },
  ];
}

export function decideRemovePet(state: PetState, id: number, reason: string | undefined): PetRemoved {
  const { heldBy } = live(state, id);
  if (heldBy !== undefined) throw new PetHeldByOrderError(id, heldBy);
  return { type: 'PetRemoved', data: { id, ...(reason !== undefined && { reason }) } };
}

function live(state: PetState, id: number): { readonly pet: Pet; readonly heldBy?: number } {
  if (state === undefined) throw new NotFoundError(`No pet has the id ${id}.`);
  if (state.kind === 'removed') throw new PetRemovedError(id);
  return state;
}

/** The live pet of a state, or the error a client gets for asking after it (404, or 404 pet_removed). */
export function livePet(state: PetState, id: number): Pet {
  return live(state, id).pet;
}

export function evolvePet(state: PetState, event: PetEvent): PetState {
  switch (event.type) {
    case 'PetCreated':
      return { kind: 'live', pet: event.data };
    case 'PetRenamed':
      return changed(state, (pet) => ({ ...pet, name: event.data.name }));
    case 'PetRecategorised':
      return changed(state, (pet) => ({ ...pet, categoryId: event.data.categoryId }));
    case 'PetStatusChanged':
      return held(
        changed(state, (pet) => ({ ...pet, status: event.data.status })),
        event.data,
      );
    case 'PetRemoved':
      return { kind: 'removed' };
  }
}

function changed(state: PetState, change: (pet: Pet) => Pet): PetState {
  return state?.kind === 'live' ? { ...state, pet: change(state.pet) } : state;
}

/** An order that makes a pet pending holds it; the order's next change of it lets it go. */
function held(state: PetState, change: PetStatusChanged['data']): PetState {
  if (state?.kind !== 'live' || change.orderId === undefined) return state;
  const { heldBy: _released, ...free } = state;
  return change.status === 'pending' ? { ...free, heldBy: change.orderId } : free;
}
