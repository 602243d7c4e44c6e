import type { EventStore, RecordedEvent } from '../ports/event-store.ts';
import type { ReadMeter } from './replay-cost.ts';

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
  range: { readonly after: bigint; readonly upTo: bigint | undefined },
): AsyncGenerator<FoldedEvent<S>> {
  const { store, meter, stopped } = replaying;
  const { after, upTo } = range;
  if (upTo === undefined || after >= upTo) return;
  const folded = new Map<number, { readonly version: number; readonly state: S | undefined }>();
  for await (const event of store.readAll({ after })) {
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
