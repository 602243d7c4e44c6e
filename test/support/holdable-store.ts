import type { EventStore, RecordedEvent } from '../../src/application/ports/event-store.ts';
import { storeWith } from './store-with.ts';

/**
 * The store under a switch: while `held`, the read models' subscription delivers nothing, so that
 * the store can be ahead of them (as another process's writes are, for a moment).
 */
export function holdableStore(store: EventStore) {
  let release = Promise.withResolvers<void>();
  let held = false;
  const holdable = storeWith(store, {
    subscribeToAll(options) {
      const subscription = store.subscribeToAll(options);
      return {
        ...subscription,
        async *batches(): AsyncGenerator<readonly RecordedEvent[]> {
          for await (const batch of subscription.batches()) {
            while (held) await release.promise;
            yield batch;
          }
        },
        close: () => subscription.close(),
      };
    },
  });
  return {
    store: holdable,
    hold: () => {
      held = true;
      release = Promise.withResolvers<void>();
    },
    release: () => {
      held = false;
      release.resolve();
    },
  };
}
