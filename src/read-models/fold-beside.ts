import { EVENTS_PER_TURN, turnsEvery } from '../shared/next-turn.ts';
import type { Logger } from 'pino';
import type { EventStore, RecordedEvent } from '../application/ports/event-store.ts';
import { ReadModel } from './read-model.ts';
import type { SnapshotStore } from './snapshot-file.ts';

/** How far a fold from position 0 has come. */
export type FoldProgress = {
  readonly events: number;
  /** Position the fresh read model includes, and the one it is catching up with. */
  readonly position: bigint | undefined;
  readonly target: bigint | undefined;
  readonly startedAtMs: number;
};

export type FoldBesideOptions<State, Result> = {
  readonly store: EventStore;
  /** The read model to catch up with: it may move on meanwhile (the group keeps feeding it). */
  readonly live: Pick<ReadModel<State>, 'projection' | 'checkpoint'>;
  /** Where the fresh read model may save its snapshot (by default it saves none). */
  readonly snapshots?: SnapshotStore;
  /** Resolves once `live` includes this position. */
  readonly waitFor: (position: bigint) => Promise<void>;
  readonly logger: Logger;
  /**
   * Runs synchronously the moment the fresh read model includes exactly the events `live` does,
   * before `live` can move again: a swap or a comparison there sees both at one position.
   */
  readonly caughtUp: (fresh: ReadModel<State>) => Result;
  /** Runs synchronously when the fresh read model includes exactly the events up to this position. */
  readonly stopover?: { readonly position: bigint; readonly reached: (fresh: ReadModel<State>) => void };
  readonly onProgress?: (progress: FoldProgress) => void;
  readonly signal?: AbortSignal;
  /** Events folded between turns of the event loop: EVENTS_PER_TURN. */
  readonly eventsPerTurn?: number;
};

/**
 * Folds every event afresh into a new read model of `live`'s projection, beside it: from position 0
 * up to wherever `live` is by then, a batch at a time (the event loop serves requests every
 * `eventsPerTurn` events). It reads the store on a subscription of its own, and never goes past
 * `live`: what `live` has not applied yet, it waits for.
 */
export async function foldBeside<State, Result>(options: FoldBesideOptions<State, Result>): Promise<Result> {
  const { live } = options;
  const fresh = new ReadModel(live.projection, options.snapshots, options.logger);
  const progress = { events: 0, startedAtMs: Date.now() };
  const report = () =>
    options.onProgress?.({ ...progress, position: fresh.checkpoint, target: live.checkpoint });
  let stopover = options.stopover;
  if (live.checkpoint === undefined) return options.caughtUp(fresh);
  const subscription = options.store.subscribeToAll({ lean: true });
  const turn = turnsEvery(options.eventsPerTurn ?? EVENTS_PER_TURN);
  const stop = () => void subscription.close();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const batch of subscription.batches()) {
      let rest = batch;
      while (rest.length > 0) {
        options.signal?.throwIfAborted();
        const toStopover = stopover === undefined ? rest.length : count(rest, stopover.position);
        if (toStopover === 0) stopover = undefined; // no event there: a stopover never reached
        const upTo = Math.min(count(rest, live.checkpoint!), toStopover || rest.length);
        if (upTo === 0) {
          await abortable(options.waitFor(rest[0]!.position), options.signal); // live has not applied it yet
          // A target that does not move (a head, a snapshot's position) without an event of the feed
          // there (KurrentDB skips events it cannot read): every event up to it is folded.
          if (live.checkpoint! < rest[0]!.position) {
            report();
            return options.caughtUp(fresh);
          }
          continue;
        }
        fresh.apply(rest.slice(0, upTo), undefined);
        progress.events += upTo;
        rest = rest.slice(upTo);
        if (stopover !== undefined && fresh.checkpoint === stopover.position) {
          stopover.reached(fresh);
          stopover = undefined;
        }
        if (fresh.checkpoint === live.checkpoint) {
          report();
          return options.caughtUp(fresh);
        }
      }
      report();
      // The store's batches come on promises alone (its reads are synchronous): without a turn of
      // the event loop here, a fold of 300,000 events held every request, probe and signal for 2 s.
      const turning = turn(batch.length);
      if (turning !== undefined) await turning;
    }
    options.signal?.throwIfAborted();
    throw new Error('The store subscription ended before the fold caught up.');
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await subscription.close();
  }
}

function abortable(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return wait;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const aborted = () => reject(signal.reason as Error);
    signal.addEventListener('abort', aborted, { once: true });
    wait.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}

/** How many events at the start of the batch are at or before `position` (all, without one). */
function count(batch: readonly RecordedEvent[], position: bigint | undefined): number {
  if (position === undefined) return batch.length;
  let low = 0;
  let high = batch.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (batch[mid]!.position <= position) low = mid + 1;
    else high = mid;
  }
  return low;
}
