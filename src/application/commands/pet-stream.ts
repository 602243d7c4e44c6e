import {
  evolvePet,
  livePet,
  type Pet,
  type PetEvent,
  type PetState,
  petStreamName,
  type VersionedPet,
} from '../../domain/pets.ts';
import { PreconditionFailedError } from '../../shared/errors.ts';
import { type Clock, clockAt, type RequestContext } from '../../shared/context.ts';
import { newEventMetadata } from '../../shared/event-metadata.ts';
import { type EventStore, WrongExpectedRevisionError } from '../ports/event-store.ts';
import type { PetReadModel } from '../ports/read-models.ts';
import type { Turns } from '../turns.ts';
import { backOffAfterConflict } from './conflict-backoff.ts';

/**
 * Changing a pet: load its state, decide, and append with the revision the decision was made on as
 * the expected one, so that the store, not this process's memory, decides between concurrent
 * changes (across processes too). The read model is the fast source of that state; the pet's
 * stream is read instead when the read model may be behind another process's write: before any
 * answer that no append confirms (the pet unknown, the client expecting another version, a
 * refusal, a change that changes nothing) and after a conflict.
 */

export type PetStreamDependencies = {
  readonly store: EventStore;
  readonly readModel: PetReadModel;
  readonly clock: Clock;
  /** Changes to one pet take their turns in this process (see turns.ts). */
  readonly petTurns: Turns<number>;
};

export type ChangeOptions = {
  /**
   * The versions the client may be changing (from `If-Match` or `expectedVersion`): another current
   * version is a 412, and so is a concurrent change that wins. Absent: any version.
   */
  readonly expectedVersions?: readonly number[];
  /**
   * The versions the client does not want changed (from `If-None-Match`; `'any'` for `*`): a
   * current version among them is a 412. Absent: none.
   */
  readonly unwantedVersions?: readonly number[] | 'any';
};

/** Why the options refuse a change to this current version (a 412); undefined when they allow it. */
export function unmetPrecondition(
  what: string,
  options: ChangeOptions,
  current: number,
): PreconditionFailedError | undefined {
  const { expectedVersions: expected, unwantedVersions: unwanted } = options;
  if (expected !== undefined && !expected.includes(current)) {
    return new PreconditionFailedError(what, current, expected);
  }
  if (unwanted === 'any' || unwanted?.includes(current)) return new PreconditionFailedError(what, current);
  return undefined;
}

export type PetChangeResult = {
  /** The pet after the change; undefined once removed. */
  readonly pet: VersionedPet | undefined;
  /** The pet's version after the change (unchanged when nothing was appended). */
  readonly version: number;
  /** Store position of the last event appended; undefined when the change appended nothing. */
  readonly position: bigint | undefined;
};

/** A pet's state and the revision of its stream it reflects (undefined: no stream). */
export type LoadedPet = { readonly state: PetState; readonly version: number | undefined };

const MAX_ATTEMPTS = 10;

/** Decides on pet `id` and appends, in the pet's turn (see turns.ts). */
export function changePet(...args: Parameters<typeof decideAndAppend>): Promise<PetChangeResult> {
  const [deps, id] = args;
  return deps.petTurns.take(id, () => decideAndAppend(...args));
}

async function decideAndAppend(
  deps: PetStreamDependencies,
  id: number,
  context: RequestContext,
  options: ChangeOptions,
  decide: (state: PetState) => PetEvent[],
): Promise<PetChangeResult> {
  const expected = options.expectedVersions;
  let fromStore = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { state, version } = fromStore ? await fromStream(deps, id) : fromReadModel(deps, id);
    const current = state?.kind === 'live' ? version : undefined;
    const unmet = current === undefined ? undefined : unmetPrecondition(`Pet ${id}`, options, current);
    if ((current === undefined || unmet !== undefined) && !fromStore) {
      fromStore = true; // the read model may not have this pet's latest events yet
      continue;
    }
    livePet(state, id); // 404 before 412: an unknown or removed pet has no version to compare
    if (unmet !== undefined) throw unmet;
    let events: PetEvent[];
    try {
      events = decide(state);
    } catch (refusal) {
      if (fromStore) throw refusal;
      fromStore = true; // before a refusal, make sure the read model was not behind a change that allows it
      continue;
    }
    if (events.length === 0 && !fromStore) {
      fromStore = true; // nothing to change, or a change the read model has not seen yet?
      continue;
    }
    if (events.length === 0)
      return { pet: versioned(state, current!), version: current!, position: undefined };
    const decidedAt = clockAt(deps.clock.now()); // a patch's several events happened at one time
    try {
      const result = await deps.store.appendToStream(
        petStreamName(id),
        events.map((event) => ({ ...event, metadata: newEventMetadata(decidedAt, context) })),
        { expectedRevision: BigInt(current!) },
      );
      await deps.readModel.waitFor(result.position);
      const after = events.reduce(evolvePet, state);
      const newVersion = Number(result.nextExpectedRevision);
      return { pet: versioned(after, newVersion), version: newVersion, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (expected !== undefined)
        throw new PreconditionFailedError(`Pet ${id}`, Number(error.actual), expected);
      fromStore = true; // another change came first: decide again on the pet as it is now
      await backOffAfterConflict(attempt);
    }
  }
  throw new Error(`Pet ${id} kept changing under ${MAX_ATTEMPTS} attempts to change it.`);
}

/** The pet as this process's read model has it: fast, but possibly behind another process's write. */
export function fromReadModel(deps: Pick<PetStreamDependencies, 'readModel'>, id: number): LoadedPet {
  const pet = deps.readModel.getPet(id);
  if (pet !== undefined) {
    const heldBy = deps.readModel.heldBy(id);
    const state = {
      kind: 'live' as const,
      pet: withoutVersion(pet),
      ...(heldBy !== undefined && { heldBy }),
    };
    return { state, version: pet.version };
  }
  const removed = deps.readModel.removedVersion(id);
  return removed === undefined
    ? { state: undefined, version: undefined }
    : { state: { kind: 'removed' }, version: removed };
}

/** The pet as its stream has it now: exact, at the cost of a read. */
export async function fromStream(deps: Pick<PetStreamDependencies, 'store'>, id: number): Promise<LoadedPet> {
  const events = await deps.store.readStream(petStreamName(id));
  const state = events.reduce<PetState>(
    (pet, event) => evolvePet(pet, event as unknown as PetEvent),
    undefined,
  );
  const last = events.at(-1);
  return { state, version: last === undefined ? undefined : Number(last.revision) };
}

function versioned(state: PetState, version: number): VersionedPet | undefined {
  return state?.kind === 'live' ? { ...state.pet, version } : undefined;
}

function withoutVersion({ version: _version, ...pet }: VersionedPet): Pet {
  return pet;
}
