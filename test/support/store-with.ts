import type { EventStore } from '../../src/application/ports/event-store.ts';

/**
 * The store with some of its methods replaced, every other one passed through: how a test makes a
 * store fail, race or hold on cue. (A spread would not do: the store's methods are its class's.)
 */
export function storeWith(store: EventStore, overrides: Partial<EventStore>): EventStore {
  return {
    appendToStream: (...args) => store.appendToStream(...args),
    appendToStreams: (...args) => store.appendToStreams(...args),
    readStream: (...args) => store.readStream(...args),
    readAll: (...args) => store.readAll(...args),
    subscribeToAll: (...args) => store.subscribeToAll(...args),
    headPosition: () => store.headPosition(),
    checkWritable: () => store.checkWritable(),
    close: () => store.close(),
    ...overrides,
  };
}
