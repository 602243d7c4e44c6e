import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { type EventStore, StoreUnavailableError } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { observeAppends } from '../../src/observability/observed-store.ts';
import { storeReadiness } from '../../src/observability/readiness.ts';
import { watchStoreWrites } from '../../src/observability/store-writes.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { controlledClock } from '../support/guarded-app.ts';
import { storeWith } from '../support/store-with.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** Readiness against a real embedded store: whether it answers, and how far a read model lags. */

const NOW = Date.UTC(2030, 0, 15, 10, 0, 0);
let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
});
afterEach(async () => {
  await store.close().catch(() => {});
  temp.remove();
});

async function appendAt(occurredAt: number): Promise<bigint> {
  const metadata = {
    eventId: randomUUID(),
    occurredAt: new Date(occurredAt).toISOString(),
    correlationId: 'c',
    schemaVersion: 1,
  };
  return (await store.appendToStream(`pet-${randomUUID()}`, [{ type: 'PetCreated', data: {}, metadata }]))
    .position;
}

const readiness = (checkpoint: bigint | undefined) =>
  storeReadiness({
    store,
    readers: () => [{ name: 'pet-list', checkpoint }],
    maxLagMs: 10_000,
    clock: controlledClock(NOW),
  })();

const delayed = async <T>(ms: number, value: Promise<T>): Promise<T> => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return value;
};

async function* delayedIterable<T>(ms: number, items: AsyncIterable<T>): AsyncGenerator<T> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  yield* items;
}

describe('readiness', () => {
  it('is ready when every read model has every event', async () => {
    const head = await appendAt(NOW - 60_000);
    expect(await readiness(head)).toEqual({ ready: true });
  });

  it('is ready when a read model lags by less than the threshold', async () => {
    const applied = await appendAt(NOW - 60_000);
    await appendAt(NOW - 9_000);
    expect(await readiness(applied)).toEqual({ ready: true });
  });

  it('is not ready when the oldest event a read model lacks is older than the threshold', async () => {
    const applied = await appendAt(NOW - 60_000);
    await appendAt(NOW - 12_500);
    await appendAt(NOW - 1_000);
    expect(await readiness(applied)).toEqual({
      ready: false,
      reason: 'read model pet-list is 12.5 s behind the event store (the limit is 10 s)',
    });
  });

  it('answers within its timeout in all, however many read models it asks about', async () => {
    const head = await appendAt(NOW - 60_000);
    // Each question takes 300 ms: four of them (the head, three read models) one after another
    // would take 1.2 s, under a timeout of 500 ms per question.
    const slow = storeWith(store, {
      headPosition: () => delayed(300, store.headPosition()),
      readAll: (options) => delayedIterable(300, store.readAll(options)),
    });
    const started = performance.now();
    const state = await storeReadiness({
      store: slow,
      readers: () => ['pet-list', 'api-keys', 'orders'].map((name) => ({ name, checkpoint: head })),
      maxLagMs: 10_000,
      clock: controlledClock(NOW),
      timeoutMs: 500,
    })();
    expect([state, performance.now() - started < 1_000]).toEqual([
      { ready: false, reason: 'the event store does not answer (no answer within 500 ms)' },
      true,
    ]);
  });

  it('says why a store that cannot be reached does not answer, in the probe’s words, not a client’s Retry-After', async () => {
    const unreachable = storeWith(store, {
      headPosition: () =>
        Promise.reject(
          new StoreUnavailableError(
            'unreachable',
            'the KurrentDB server at kurrentdb://db:2113 cannot be reached',
          ),
        ),
    });
    const state = await storeReadiness({
      store: unreachable,
      readers: () => [],
      maxLagMs: 10_000,
      clock: controlledClock(NOW),
    })();
    expect(state).toEqual({
      ready: false,
      reason: 'the event store does not answer (it cannot be reached or did not answer in time)',
    });
  });

  it('is not ready when the store does not answer', async () => {
    await store.close();
    const state = await readiness(undefined);
    expect(state.ready).toBe(false);
    expect(state).toMatchObject({
      reason: expect.stringMatching(/^the event store does not answer \(.+\)$/),
    });
  });

  describe('on a store that refuses writes (its pages full, PETSTORE_FAILPOINT=store-cannot-grow)', () => {
    let full: EventStore;
    let side: DatabaseSync;
    beforeEach(() => {
      const file = path.join(temp.dir, 'full.sqlite');
      full = openSqliteEventStore({ file, failpoint: 'store-cannot-grow' });
      side = new DatabaseSync(file);
      side.exec('CREATE TABLE ballast (b BLOB)');
      for (let i = 0; i < 100; i++) side.exec('INSERT INTO ballast VALUES (zeroblob(4000))');
    });
    afterEach(async () => {
      side.close();
      await full.close();
    });

    /** The store as the server wires it: appends seen by the watch, readiness asking it. */
    function watched() {
      const { logger, lines } = capturedLogger();
      const writes = watchStoreWrites(full, logger, controlledClock(NOW));
      const store = observeAppends(full, writes.observer);
      const ready = storeReadiness({
        store,
        readers: () => [],
        maxLagMs: 10_000,
        clock: controlledClock(NOW),
        writes,
      });
      return { store, ready, lines };
    }

    async function appendUntilRefused(store: EventStore): Promise<void> {
      for (let i = 0; i < 10_000; i++) {
        const refused = await store
          .appendToStream(`pet-${randomUUID()}`, [
            {
              type: 'PetCreated',
              data: {},
              metadata: {
                eventId: randomUUID(),
                occurredAt: new Date(NOW).toISOString(),
                correlationId: 'c',
                schemaVersion: 1,
              },
            },
          ])
          .then(
            () => false,
            (error: unknown) => error instanceof StoreUnavailableError,
          );
        if (refused) return;
      }
      throw new Error('the store never refused an append');
    }

    it('is not ready once an append was refused, naming the failure without the store’s path', async () => {
      const { store, ready } = watched();
      expect(await ready()).toEqual({ ready: true });
      await appendUntilRefused(store);
      expect(await ready()).toEqual({
        ready: false,
        reason: 'the event store refuses writes: its disk is full',
      });
    });

    it('is ready again once a probe finds room, with no append in between', async () => {
      const { store, ready } = watched();
      await appendUntilRefused(store);
      side.exec('DELETE FROM ballast');
      expect(await ready()).toEqual({ ready: true });
    });

    it('logs one warning when the store starts refusing writes and one line when it takes them again', async () => {
      const { store, ready, lines } = watched();
      await appendUntilRefused(store);
      await appendUntilRefused(store);
      await ready();
      side.exec('DELETE FROM ballast');
      await ready();
      expect(lines.map((line) => [line.level, line.msg])).toEqual([
        [
          40,
          `the event store refuses writes: the disk holding ${temp.dir} is full (SQLite: database or disk is full); writes are answered 503 store_unavailable and this process is not ready until it takes them again`,
        ],
        [30, 'the event store takes writes again (a probe succeeded)'],
      ]);
    });
  });
});
