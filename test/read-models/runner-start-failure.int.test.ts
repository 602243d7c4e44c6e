import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { petListProjection } from '../../projections/pet-list.ts';
import type { EventStore, Subscription } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { ProjectionGroup } from '../../src/read-models/runner.ts';
import { makeTempDir } from '../support/temp-dir.ts';

let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
beforeEach(async () => {
  temp = makeTempDir();
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  const metadata = {
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'c',
    schemaVersion: 1,
  };
  await store.appendToStream('pet-1', [
    { type: 'PetCreated', data: { id: 1, name: 'Rex', categoryId: 1 }, metadata },
  ]);
});
afterEach(async () => {
  await store.close();
  temp.remove();
});

/** The store, except that reading its events fails the way a damaged file does. */
function unreadable(failure: Error): EventStore {
  const failing: Subscription = {
    batches: () => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(failure) }),
    }),
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(failure) }),
    close: async () => {},
  };
  return {
    appendToStream: (...args) => store.appendToStream(...args),
    appendToStreams: (...args) => store.appendToStreams(...args),
    readStream: (...args) => store.readStream(...args),
    readAll: (...args) => store.readAll(...args),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
    subscribeToAll: () => failing,
  };
}

it('start() fails with the store’s error when the store cannot be read before the first catch-up', async () => {
  const damaged = new Error('database disk image is malformed');
  const group = new ProjectionGroup({
    store: unreadable(damaged),
    logger: pino({ level: 'silent' }),
    retryDelayMs: 10,
  });
  group.add(petListProjection);
  await expect(group.start()).rejects.toBe(damaged);
});
