import { EVENTS_PER_TURN, turnsEvery } from '../../shared/next-turn.ts';
import type { EventStore, RecordedEvent } from '../ports/event-store.ts';
import type { ReadModelProgress } from '../ports/read-models.ts';
import { givenAfter, type SentStart } from './positions.ts';
import { type PayForReads, type ReadMeter, readMeter } from './replay-cost.ts';

/** Changes resumed after a store position: what came before now, then the live ones. */
export type ResumedChanges<C> = {
  /** The changes after the position that this process's read model had applied when asked, in store order. */
  readonly replayed: AsyncIterable<C>;
  /** Stops the live changes, and the replay: it reads no further, and ends. */
  readonly unsubscribe: () => void;
};

export type Range = { readonly after: bigint; readonly upTo: bigint | undefined };

/**
 * The changes after `after` (checked before it resolves: a position past the store's last event
 * is a 400), then every later one. The function returned starts them: `listener` hears the live
 * ones (from `live`) from that call on, and `replayed` yields, from the store (`replay`), those up
 * to where the read models stood at that call, each read paid for with `pay` (see replay-cost.ts).
 * Consume `replayed` first, then the live ones: together, no gap and no repeat.
 */
export async function resumeChanges<C extends { readonly position: bigint }>(
  deps: { readonly store: EventStore; readonly progress: ReadModelProgress },
  after: string | SentStart,
  pay: PayForReads | undefined,
  sources: {
    live(listener: (change: C) => void): () => void;
    replay(replaying: Replaying, range: Range): AsyncIterable<C>;
  },
): Promise<(listener: (change: C) => void) => ResumedChanges<C>> {
  const { store, progress } = deps;
  const from = await givenAfter(store, typeof after === 'string' ? { after } : after);
  if (from === undefined) throw new Error('Changes are resumed after a position: after or Last-Event-ID.');
  return (listener) => {
    // Both in one synchronous step: every change past `upTo` reaches the listener, none before.
    // A read model behind `from` (another process gave it) applies changes the client had
    // already: those are not heard again.
    const upTo = progress.checkpoint;
    const off = sources.live((change) => {
      if (change.position > from) listener(change);
    });
    // Ending the stream ends the replay: a payment waiting for the budget settles at once, unpaid,
    // and the replay must then read no further, or it would read on, unpaid, to the next change.
    const stopped = new AbortController();
    const unsubscribe = () => {
      stopped.abort();
      off();
    };
    const replaying = { store, meter: readMeter(pay, stopped.signal), stopped: stopped.signal };
    return { replayed: sources.replay(replaying, { after: from, upTo }), unsubscribe };
  };
}

/** How a replay folds one kind of aggregate (pets, orders): its events, its streams, its `evolve`. */
export type FoldedAggregate<S> = {
  readonly eventTypes: ReadonlySet<string>;
  /** An event whose state after it needs none before it (a creation, a removal). */
  standsAlone(event: RecordedEvent): boolean;
  idOf(event: RecordedEvent): number;
  streamName(id: number): string;
  evolve(state: S | undefined, event: RecordedEvent): S | undefined;
};

/** What a replay reads with: the store, the meter its reads are paid through, and its end. */
export type Replaying = {
  readonly store: EventStore;
  readonly meter: ReadMeter;
  /** Aborts once the stream has ended: a payment then settles unpaid, and nothing more is read. */
  readonly stopped: AbortSignal;
};

/** One of the aggregate's events, with the aggregate's id, and its version and state right after it. */
export type FoldedEvent<S> = {
  readonly event: RecordedEvent;
  readonly id: number;
  readonly version: number;
  readonly state: S | undefined;
};

/**
 * How many aggregates a replay keeps folded, the latest it met: each change of one of them is
 * folded from the one before, and only one met first (or again after this many others) is read
 * from its stream. Reading every change's aggregate from its stream cost one with n changes n²/2
 * reads.
 */
const KEPT_FOLDED = 1000;

/**
 * The aggregate's events after `after` up to `upTo`, in store order, each with the state it left.
 * Every event read is paid for through the meter before it is delivered, and so are the events of
 * a stream read to fold an aggregate, before they are read (a pet may have a million); once
 * `stopped` aborts, it reads no further and ends.
 */
export async function* foldedReplay<S>(
  replaying: Replaying,
  aggregate: FoldedAggregate<S>,
  range: Range,
): AsyncGenerator<FoldedEvent<S>> {
  const { store, meter, stopped } = replaying;
  const { after, upTo } = range;
  if (upTo === undefined || after >= upTo) return;
  const folded = new Map<number, { readonly version: number; readonly state: S | undefined }>();
  // Turns by events read: the events of other aggregates (or of orders the caller may not see)
  // are passed over without delivering anything, so the consumer's turns never come.
  const turn = turnsEvery(EVENTS_PER_TURN);
  for await (const event of store.readAll({ after })) {
    const turned = turn(1);
    if (turned !== undefined) await turned;
    if (event.position > upTo || stopped.aborted) return;
    const paid = meter(1);
    if (paid !== undefined) await paid;
    if (stopped.aborted) return;
    if (!aggregate.eventTypes.has(event.type)) continue;
    const id = aggregate.idOf(event);
    const version = Number(event.revision);
    const before = folded.get(id);
    const state =
      aggregate.standsAlone(event) || before?.version === version - 1
        ? aggregate.evolve(before?.state, event)
        : await foldedFromStream(replaying, aggregate, id, version);
    if (stopped.aborted) return;
    folded.delete(id);
    folded.set(id, { version, state });
    if (folded.size > KEPT_FOLDED) folded.delete(folded.keys().next().value!);
    yield { event, id, version, state };
  }
}

/** The aggregate as it was at `version`, folded from its stream, its `version + 1` events paid for first. */
async function foldedFromStream<S>(
  replaying: Replaying,
  aggregate: FoldedAggregate<S>,
  id: number,
  version: number,
): Promise<S | undefined> {
  const { store, meter, stopped } = replaying;
  await meter(version + 1);
  if (stopped.aborted) return undefined;
  const history = await store.readStream(aggregate.streamName(id), { maxCount: version + 1 });
  return history.reduce<S | undefined>((state, event) => aggregate.evolve(state, event), undefined);
}
