import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { petListProjection } from '../../projections/pet-list.ts';
import type { EventStore, Subscription } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { ProjectionGroup } from '../../src/read-models/runner.ts';
import { capturedLogger } from '../support/log-lines.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { storeWith } from '../support/store-with.ts';

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
  return storeWith(store, { subscribeToAll: () => failing });
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

it('logs a failure that repeats on every resubscription after the first catch-up once, not every retry', async () => {
  const failure = new Error('database disk image is malformed');
  let subscriptions = 0;
  let broken = false;
  const failing = unreadable(failure).subscribeToAll();
  const flaky = storeWith(store, {
    subscribeToAll: (options) => {
      subscriptions += 1;
      if (subscriptions > 1) return failing;
      const real = store.subscribeToAll(options);
      return {
        ...real,
        batches: async function* () {
          for await (const batch of real.batches()) {
            yield batch;
            if (broken) throw failure;
          }
        },
        close: () => real.close(),
      };
    },
  });
  const { logger, lines } = capturedLogger();
  const group = new ProjectionGroup({ store: flaky, logger, retryDelayMs: 5 });
  group.add(petListProjection);
  await group.start();
  broken = true;
  await store.appendToStream('pet-2', [
    {
      type: 'PetCreated',
      data: { id: 2, name: 'Max', categoryId: 1 },
      metadata: {
        eventId: randomUUID(),
        occurredAt: new Date().toISOString(),
        correlationId: 'c',
        schemaVersion: 1,
      },
    },
  ]);
  await expect.poll(() => subscriptions, { timeout: 5_000 }).toBeGreaterThanOrEqual(6);
  await group.stop();
  expect(
    lines.filter((line) => line.msg === 'subscription failed: resubscribing from the checkpoint'),
  ).toEqual([
    expect.objectContaining({ level: 50, err: expect.objectContaining({ message: failure.message }) }),
  ]);
});
