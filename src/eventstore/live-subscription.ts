import type { RecordedEvent, Subscription } from '../application/ports/event-store.ts';
import { batchedSubscription } from './subscription.ts';

export type LiveSubscriptionSource = {
  readonly after: bigint;
  /** The next events after a position, in position order; empty when there are none yet. */
  readonly readBatch: (after: bigint) => RecordedEvent[];
  /** Registers a callback run after each local append; returns its removal. */
  readonly onAppend: (notify: () => void) => () => void;
  /** Fallback wake-up, for events appended by other processes. */
  readonly pollIntervalMs: number;
  /** See `SubscribeToAllOptions.onCheckpoint`: here, each batch's last position once taken. */
  readonly onCheckpoint?: ((position: bigint) => void) | undefined;
};

/**
 * Catch-up then live subscription over a store that can be read in batches by position: reads
 * until nothing is left, then sleeps until an append (or the poll interval) wakes it.
 */
export function liveSubscription(source: LiveSubscriptionSource): Subscription {
  let closed = false;
  let wake: (() => void) | undefined;
  const removeListener = source.onAppend(() => wake?.());

  async function* batches(): AsyncGenerator<readonly RecordedEvent[]> {
    let after = source.after;
    try {
      while (!closed) {
        const batch = source.readBatch(after);
        if (batch.length === 0) {
          await sleepUntilWoken();
          continue;
        }
        yield batch;
        after = batch[batch.length - 1]!.position;
        source.onCheckpoint?.(after);
      }
    } finally {
      removeListener();
    }
  }

  function sleepUntilWoken(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, source.pollIntervalMs);
      function done(): void {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  return batchedSubscription(batches(), async () => {
    closed = true;
    wake?.();
    removeListener();
  });
}
