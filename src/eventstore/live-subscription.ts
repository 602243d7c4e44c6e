import type { RecordedEvent, Subscription } from './port.ts';

export type LiveSubscriptionSource = {
  readonly after: bigint;
  /** The next events after a position, in position order; empty when there are none yet. */
  readonly readBatch: (after: bigint) => RecordedEvent[];
  /** Registers a callback run after each local append; returns its removal. */
  readonly onAppend: (notify: () => void) => () => void;
  /** Fallback wake-up, for events appended by other processes. */
  readonly pollIntervalMs: number;
};

/**
 * Catch-up then live subscription over a store that can be read in batches by position: reads
 * until nothing is left, then sleeps until an append (or the poll interval) wakes it.
 */
export function liveSubscription(source: LiveSubscriptionSource): Subscription {
  let closed = false;
  let wake: (() => void) | undefined;
  const removeListener = source.onAppend(() => wake?.());

  async function* events(): AsyncGenerator<RecordedEvent> {
    let after = source.after;
    try {
      while (!closed) {
        const batch = source.readBatch(after);
        for (const event of batch) {
          if (closed) return;
          yield event;
          after = event.position;
        }
        if (batch.length === 0) await sleepUntilWoken();
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

  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    async close() {
      closed = true;
      wake?.();
      removeListener();
    },
  };
}
