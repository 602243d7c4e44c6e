import { AppError, NotFoundError, ValidationError } from '../shared/errors.ts';

/**
 * The pet aggregate, pure: validation, `decide*` from a command and the pet's state to events, and
 * `evolvePet` folding an event into the state. No I/O; time and ids come in as arguments.
 */

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** Longest accepted pet name, in Unicode code points. */
export const PET_NAME_MAX_LENGTH = 100;
/** Longest accepted reason for a removal, in Unicode code points. */
export const REMOVAL_REASON_MAX_LENGTH = 200;

/** Ids are int64 on the wire, and never above 2^53−1 so that every JSON client reads them exactly. */
export const MAX_PET_ID = Number.MAX_SAFE_INTEGER;

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

export type CreatePet = { readonly type: 'CreatePet'; readonly data: unknown };

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
    readonly orderId?: string;
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

/** What a decision needs to know of a pet: nothing before it was created. */
export type PetState =
  { readonly kind: 'live'; readonly pet: Pet } | { readonly kind: 'removed' } | undefined;

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

const NEW_PET_FIELDS = new Set(['name', 'categoryId', 'status']);

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

/** The one validator for NewPet, used by every adapter. Throws a ValidationError naming the field. */
export function validateNewPet(input: unknown): NewPet {
  const record = petFields(input, 'The body must be a JSON object with name and categoryId.');
  const name = validateName(record.name);
  const categoryId = validateCategoryId(record.categoryId);
  if (record.status === undefined) return { name, categoryId };
  return { name, categoryId, status: validateStatus(record.status) };
}

/**
 * A merge patch of a pet, by the same rules as a new pet: each field it holds must be valid, `null`
 * removes nothing (every field a patch can hold is one a pet keeps), and `id` or any other field
 * is refused.
 */
export function validatePetPatch(input: unknown): PetPatch {
  const record = petFields(
    input,
    'The body must be a JSON object (a merge patch of name, categoryId, status).',
  );
  if (record.name === null || record.categoryId === null || record.status === null) {
    const field = record.name === null ? 'name' : record.categoryId === null ? 'categoryId' : 'status';
    throw new ValidationError(`${field} cannot be removed; give it a value.`, field);
  }
  return {
    ...(record.name !== undefined && { name: validateName(record.name) }),
    ...(record.categoryId !== undefined && { categoryId: validateCategoryId(record.categoryId) }),
    ...(record.status !== undefined && { status: validateStatus(record.status) }),
  };
}

function petFields(input: unknown, notAnObject: string): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError(notAnObject);
  }
  const record = input as Record<string, unknown>;
  for (const field of Object.keys(record)) {
    if (!NEW_PET_FIELDS.has(field)) {
      throw new ValidationError(
        `Field ${field} cannot be set; a pet accepts name, categoryId and status.`,
        field,
      );
    }
  }
  return record;
}

/** The one rule for a status, wherever one is given: a body, a filter, a transition. */
export function validateStatus(status: unknown, field = 'status'): PetStatus {
  if (!isPetStatus(status))
    throw new ValidationError(`${field} must be one of ${PET_STATUSES.join(', ')}.`, field);
  return status;
}

function validateName(name: unknown): string {
  if (typeof name !== 'string') throw new ValidationError('name is required and must be a string.', 'name');
  if (name.trim().length === 0) throw new ValidationError('name must not be empty.', 'name');
  if ([...name].length > PET_NAME_MAX_LENGTH) {
    throw new ValidationError(`name must be at most ${PET_NAME_MAX_LENGTH} characters.`, 'name');
  }
  return name;
}

function validateCategoryId(categoryId: unknown): number {
  if (categoryId === undefined) throw new ValidationError('categoryId is required.', 'categoryId');
  if (typeof categoryId !== 'number' || !Number.isSafeInteger(categoryId) || categoryId < 1) {
    throw new ValidationError(
      `categoryId must be a positive integer no greater than ${Number.MAX_SAFE_INTEGER}.`,
      'categoryId',
    );
  }
  return categoryId;
}

/** An optional reason given for a removal: free text, at most REMOVAL_REASON_MAX_LENGTH. */
export function validateRemovalReason(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  if (typeof reason !== 'string' || [...reason].length > REMOVAL_REASON_MAX_LENGTH) {
    throw new ValidationError(
      `reason must be text of at most ${REMOVAL_REASON_MAX_LENGTH} characters.`,
      'reason',
    );
  }
  return reason;
}

export function decideCreatePet(command: CreatePet, newId: number): PetCreated {
  const pet = validateNewPet(command.data);
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

/** A status change by the transition table; none when the pet has that status already. */
export function decideChangeStatus(
  state: PetState,
  id: number,
  status: PetStatus,
  orderId?: string,
): PetStatusChanged[] {
  const { pet } = live(state, id);
  if (pet.status === status) return [];
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
  live(state, id);
  return { type: 'PetRemoved', data: { id, ...(reason !== undefined && { reason }) } };
}

function live(state: PetState, id: number): { readonly pet: Pet } {
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
      return changed(state, (pet) => ({ ...pet, status: event.data.status }));
    case 'PetRemoved':
      return { kind: 'removed' };
  }
}

function changed(state: PetState, change: (pet: Pet) => Pet): PetState {
  return state?.kind === 'live' ? { kind: 'live', pet: change(state.pet) } : state;
}
