import {
  evolvePet,
  PET_EVENT_TYPES,
  type PetEvent,
  type PetState,
  petStreamName,
} from '../../domain/pets.ts';
import type { EventStore } from '../ports/event-store.ts';
import type { PetChange, PetReadModel, ReadModelProgress } from '../ports/read-models.ts';
import { givenPosition } from './positions.ts';
import { type FoldedAggregate, foldedReplay, type Replaying } from './folded-replay.ts';
import { type PayForReads, readMeter } from './replay-cost.ts';

/** Pet changes live, and resumed after a store position: the GraphQL subscriptions' source. */
export type ResumedPetChanges = {
  /** The changes after the position that this process's read model had applied when asked, in store order. */
  readonly replayed: AsyncIterable<PetChange>;
  /** Stops the live changes, and the replay: it reads no further, and ends. */
  readonly unsubscribe: () => void;
};

export function petChangeQueries(deps: {
  readonly store: EventStore;
  readonly pets: PetReadModel;
  readonly progress: ReadModelProgress;
}) {
  const { store, pets, progress } = deps;
  return {
    /** Calls `listener` with every pet created, changed or removed from now on, in store order. */
    onPetChange: (listener: (change: PetChange) => void) => pets.onChange(listener),
    /**
     * The changes after `after` (checked before it resolves: a position past the store's last event
     * is a 400), then every later one. The function returned
     * starts them: `listener` hears the live ones from that call on, and `replayed` yields, from the
     * store, those up to where the read model stood at that call. Consume `replayed` first, then
     * the live ones: together, no gap and no repeat.
     */
    async resumePetChanges(
      after: string,
      pay?: PayForReads,
    ): Promise<(listener: (change: PetChange) => void) => ResumedPetChanges> {
      const from = await givenPosition(store, after, 'after');
      return (listener) => {
        // Both in one synchronous step: every change past `upTo` reaches the listener, none before.
        // A read model behind `from` (another process gave it) applies changes the client had
        // already: those are not heard again.
        const upTo = progress.checkpoint;
        const off = pets.onChange((change) => {
          if (change.position > from) listener(change);
        });
        // A payment settles once its stream has ended too (it stops waiting for the budget): the
        // replay must then read no further, or it would read on, unpaid, to the next change.
        const stopped = new AbortController();
        const unsubscribe = () => {
          stopped.abort();
          off();
        };
        const replayed = replay({ store, meter: readMeter(pay), stopped: stopped.signal }, from, upTo);
        return { replayed, unsubscribe };
      };
    },
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

async function* replay(
  replaying: Replaying,
  after: bigint,
  upTo: bigint | undefined,
): AsyncGenerator<PetChange> {
  for await (const { event, id, version, state } of foldedReplay(replaying, PETS, { after, upTo })) {
    const { position } = event;
    if (event.type === 'PetRemoved') yield { type: 'removed', id, version, position };
    else if (state?.kind === 'live') {
      const type = event.type === 'PetCreated' ? 'created' : 'updated';
      yield { type, pet: { ...state.pet, version }, position };
    }
  }
}
