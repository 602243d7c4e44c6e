import { requestHash } from '../../domain/idempotency.ts';
import {
  decideCreatePet,
  type NewPet,
  type Pet,
  PET_CREATED_SCHEMA_VERSION,
  petStreamName,
  type VersionedPet,
} from '../../domain/pets.ts';
import { validateNewPet } from '../../domain/pet-rules.ts';
import { type EventStore, WrongExpectedRevisionError } from '../ports/event-store.ts';
import type { Clock, RequestContext } from '../../shared/context.ts';
import { newEventMetadata } from '../../shared/event-metadata.ts';
import type { PetReadModel } from '../ports/read-models.ts';
import { createIdempotently } from '../idempotent.ts';

export type CreatePetOptions = {
  /** A client-chosen key that makes retries of this request create at most one pet. */
  readonly idempotencyKey?: string;
};

export type CreatePetResult = {
  readonly pet: VersionedPet;
  /** True when the pet was created by an earlier request with the same idempotency key. */
  readonly replayed: boolean;
  /** Store position of the PetCreated this request appended; undefined when it appended none. */
  readonly position?: bigint;
};

export type CreatePetDependencies = {
  readonly store: EventStore;
  readonly nextPetId: () => Promise<number>;
  readonly readModel: PetReadModel;
  readonly clock: Clock;
  readonly idempotencyKeyTtlMs: number;
};

/**
 * Creates a pet: validate, decide `PetCreated`, append it durably, and return once this process's
 * read model includes it (read-your-writes).
 */
export function createPetCommand(deps: CreatePetDependencies) {
  return async function createPet(
    input: unknown,
    context: RequestContext,
    options: CreatePetOptions = {},
  ): Promise<CreatePetResult> {
    const newPet = validateNewPet(input);
    if (options.idempotencyKey === undefined) {
      return { ...(await appendPet(deps, await deps.nextPetId(), newPet, context)), replayed: false };
    }
    const { result, replayed } = await createIdempotently(deps, context, options.idempotencyKey, {
      field: 'petId',
      requestHash: requestHash(newPet),
      nextId: deps.nextPetId,
      ensureCreated: (id) => ensurePetCreated(deps, id, newPet, context),
    });
    return { ...result, replayed };
  };
}

/**
 * The pet a claim promised, as its creation answered it (a replay repeats the first response, even
 * if the pet changed or was removed since), creating it unless it exists: the claiming request may
 * still be in flight, or may have died between its claim and its pet.
 */
async function ensurePetCreated(
  deps: CreatePetDependencies,
  id: number,
  newPet: NewPet,
  context: RequestContext,
): Promise<{ pet: VersionedPet; position?: bigint }> {
  const known = deps.readModel.getPet(id);
  if (known?.version === 0) return { pet: known };
  const created = await createdPet(deps, id);
  if (created !== undefined) {
    // Another process created it, and this read model may not have it yet: answer once it does.
    if (known === undefined) await readModelAtHead(deps);
    return { pet: created };
  }
  try {
    return await appendPet(deps, id, newPet, context);
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    // Another request created it meanwhile: answer once this read model has it too.
    const pet = await createdPet(deps, id);
    if (pet === undefined) throw new Error(`Pet ${id}'s stream holds no PetCreated.`, { cause: error });
    await readModelAtHead(deps);
    return { pet };
  }
}

/** Read-your-writes for a pet another request created: a stream read's position is only a lower bound. */
async function readModelAtHead(deps: CreatePetDependencies): Promise<void> {
  const head = await deps.store.headPosition();
  if (head !== undefined) await deps.readModel.waitFor(head);
}

/** The pet as its PetCreated event recorded it (version 0), from the store. */
async function createdPet(deps: CreatePetDependencies, id: number): Promise<VersionedPet | undefined> {
  const [first] = await deps.store.readStream(petStreamName(id), { maxCount: 1 });
  return first?.type === 'PetCreated' ? { ...(first.data as unknown as Pet), version: 0 } : undefined;
}

async function appendPet(
  deps: CreatePetDependencies,
  id: number,
  newPet: NewPet,
  context: RequestContext,
): Promise<{ pet: VersionedPet; position: bigint }> {
  const event = decideCreatePet(newPet, id);
  const result = await deps.store.appendToStream(
    petStreamName(id),
    [{ ...event, metadata: newEventMetadata(deps.clock, context, PET_CREATED_SCHEMA_VERSION) }],
    { expectedRevision: 'no_stream' },
  );
  await deps.readModel.waitFor(result.position);
  return { pet: { ...event.data, version: Number(result.nextExpectedRevision) }, position: result.position };
}
