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
import { type PayForReads, type ReadMeter, readMeter } from './replay-cost.ts';

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

/**
 * How many pets a replay keeps folded, the latest it met: each change of one of them is folded
 * from the one before, and only a pet met first (or again after this many others) is read from its
 * stream. Reading every change's pet from its stream cost a pet with n changes n²/2 reads.
 */
const PETS_FOLDED = 1000;

type Replaying = { readonly store: EventStore; readonly meter: ReadMeter; readonly stopped: AbortSignal };

async function* replay(
  replaying: Replaying,
  after: bigint,
  upTo: bigint | undefined,
): AsyncGenerator<PetChange> {
  const { store, meter, stopped } = replaying;
  if (upTo === undefined || after >= upTo) return;
  const folded = new Map<number, { readonly version: number; readonly state: PetState }>();
  for await (const event of store.readAll({ after })) {
    if (event.position > upTo || stopped.aborted) return;
    const paid = meter(1);
    if (paid !== undefined) await paid;
    if (stopped.aborted) return;
    if (!PET_EVENT_TYPES.has(event.type)) continue;
    const id = event.data.id as number;
    const version = Number(event.revision);
    if (event.type === 'PetRemoved') {
      folded.delete(id);
      yield { type: 'removed', id, version, position: event.position };
      continue;
    }
    const before = folded.get(id);
    const state =
      event.type === 'PetCreated' || before?.version === version - 1
        ? evolvePet(before?.state, event as unknown as PetEvent)
        : await foldedFromStream(replaying, id, version);
    if (stopped.aborted) return;
    folded.delete(id);
    if (state?.kind !== 'live') continue;
    folded.set(id, { version, state });
    if (folded.size > PETS_FOLDED) folded.delete(folded.keys().next().value!);
    yield {
      type: event.type === 'PetCreated' ? 'created' : 'updated',
      pet: { ...state.pet, version },
      position: event.position,
    };
  }
}

/**
 * The pet as it was at `version`, folded from its stream: those reads are paid for too, before
 * they are made (the `version + 1` events read; a pet may have a million), and not made once the
 * replay has stopped meanwhile (undefined then).
 */
async function foldedFromStream(replaying: Replaying, id: number, version: number): Promise<PetState> {
  const { store, meter, stopped } = replaying;
  await meter(version + 1);
  if (stopped.aborted) return undefined;
  const history = await store.readStream(petStreamName(id), { maxCount: version + 1 });
  return history.reduce<PetState>((pet, e) => evolvePet(pet, e as unknown as PetEvent), undefined);
}
