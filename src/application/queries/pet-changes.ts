import {
  evolvePet,
  PET_EVENT_TYPES,
  type Pet,
  type PetEvent,
  type PetState,
  petStreamName,
} from '../../domain/pets.ts';
import type { EventStore, RecordedEvent } from '../ports/event-store.ts';
import type { PetChange, PetReadModel, ReadModelProgress } from '../ports/read-models.ts';
import { givenPosition } from './positions.ts';

/** Pet changes live, and resumed after a store position: the GraphQL subscriptions' source. */
export type ResumedPetChanges = {
  /** The changes after the position that this process's read model had applied when asked, in store order. */
  readonly replayed: AsyncIterable<PetChange>;
  /** Stops the live changes. */
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
    ): Promise<(listener: (change: PetChange) => void) => ResumedPetChanges> {
      const from = await givenPosition(store, after, 'after');
      return (listener) => {
        // Both in one synchronous step: every change past `upTo` reaches the listener, none before.
        // A read model behind `from` (another process gave it) applies changes the client had
        // already: those are not heard again.
        const upTo = progress.checkpoint;
        const unsubscribe = pets.onChange((change) => {
          if (change.position > from) listener(change);
        });
        return { replayed: replay(store, from, upTo), unsubscribe };
      };
    },
  };
}

async function* replay(
  store: EventStore,
  after: bigint,
  upTo: bigint | undefined,
): AsyncGenerator<PetChange> {
  if (upTo === undefined || after >= upTo) return;
  for await (const event of store.readAll({ after })) {
    if (event.position > upTo) return;
    if (!PET_EVENT_TYPES.has(event.type)) continue;
    const change = await changeOf(store, event);
    if (change !== undefined) yield change;
  }
}

/** The change an event made, with the pet as it was right after it (folded from its stream when needed). */
async function changeOf(store: EventStore, event: RecordedEvent): Promise<PetChange | undefined> {
  const { position } = event;
  const version = Number(event.revision);
  const id = event.data.id as number;
  if (event.type === 'PetRemoved') return { type: 'removed', id, version, position };
  if (event.type === 'PetCreated')
    return { type: 'created', pet: { ...(event.data as unknown as Pet), version }, position };
  const history = await store.readStream(petStreamName(id), { maxCount: version + 1 });
  const state = history.reduce<PetState>((pet, e) => evolvePet(pet, e as unknown as PetEvent), undefined);
  return state?.kind === 'live' ? { type: 'updated', pet: { ...state.pet, version }, position } : undefined;
}
