import {
  evolvePet,
  PET_EVENT_TYPES,
  type PetEvent,
  type PetState,
  petStreamName,
} from '../../domain/pets.ts';
import type { EventStore } from '../ports/event-store.ts';
import type { PetChange, PetReadModel, ReadModelProgress } from '../ports/read-models.ts';
import type { SentStart } from './positions.ts';
import type { PayForReads } from './replay-cost.ts';
import {
  type FoldedAggregate,
  foldedReplay,
  type Range,
  type Replaying,
  resumeChanges,
  type ResumedChanges,
} from './resumed-changes.ts';

/** Pet changes live, and resumed after a store position: the source of GraphQL's petChanged and petCreated, and of REST's GET /v1/pets/changes. */
export type ResumedPetChanges = ResumedChanges<PetChange>;

export function petChangeQueries(deps: {
  readonly store: EventStore;
  readonly pets: PetReadModel;
  readonly progress: ReadModelProgress;
}) {
  const { pets } = deps;
  return {
    /** Calls `listener` with every pet created, changed or removed from now on, in store order. */
    onPetChange: (listener: (change: PetChange) => void) => pets.onChange(listener),
    /** The changes after `after`, then every later one: see `resumeChanges`. */
    resumePetChanges: (after: string | SentStart, pay?: PayForReads) =>
      resumeChanges(deps, after, pay, { live: (listener) => pets.onChange(listener), replay }),
  };
}

/** Pets, as a replay folds them. */
const PETS: FoldedAggregate<PetState> = {
  eventTypes: PET_EVENT_TYPES,
  standsAlone: (event) => event.type === 'PetCreated' || event.type === 'PetRemoved',
  idOf: (event) => event.data.id as number,
  streamName: petStreamName,
  evolve: (pet, event) => evolvePet(pet, event as unknown as PetEvent),
};

async function* replay(replaying: Replaying, range: Range): AsyncGenerator<PetChange> {
  for await (const { event, id, version, state } of foldedReplay(replaying, PETS, range)) {
    const { position } = event;
    if (event.type === 'PetRemoved') yield { type: 'removed', id, version, position };
    else if (state?.kind === 'live') {
      const type = event.type === 'PetCreated' ? 'created' : 'updated';
      yield { type, pet: { ...state.pet, version }, position };
    }
  }
}
