import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventStore, UnreadableEventError } from '../../src/application/ports/event-store.ts';
import { AS_OF_SCAN_LIMIT } from '../../src/application/ports/read-models.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import {
  CLOSE_OPEN_VERSION,
  positionKey,
  SqliteTemporalIndex,
} from '../../src/read-models/temporal-index.ts';
import { rewriteEvent } from '../support/damage.ts';
import { seedPets } from '../support/seed-store.ts';
import { capturedLogger } from '../support/log-lines.ts';
import { storeWith } from '../support/store-with.ts';
import { makeTempDir } from '../support/temp-dir.ts';

const logger = pino({ level: 'silent' });
let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
});
afterEach(async () => {
  await store.close();
  temp.remove();
});

const metadata = (occurredAt: string) => ({
  eventId: randomUUID(),
  occurredAt,
  correlationId: 'c',
  schemaVersion: 1,
});

async function renamedPet(): Promise<{ created: bigint; renamed: bigint }> {
  const created = await store.appendToStream('pet-1', [
    {
      type: 'PetCreated',
      data: { id: 1, name: 'Rex', categoryId: 1 },
      metadata: metadata('2030-01-01T00:00:00.000Z'),
    },
  ]);
  const renamed = await store.appendToStream('pet-1', [
    {
      type: 'PetRenamed',
      data: { id: 1, name: 'Max', previousName: 'Rex' },
      metadata: metadata('2030-01-02T00:00:00.000Z'),
    },
  ]);
  return { created: created.position, renamed: renamed.position };
}

describe('positionKey', () => {
  it('writes a position as 16 big-endian bytes', () => {
    expect([...positionKey((5n << 64n) | 0x0102n)]).toEqual([0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 1, 2]);
  });

  it('orders keys as their positions, KurrentDB’s 128-bit ones included', () => {
    const positions = [0n, 1n, 255n, 256n, 2n ** 64n, (5n << 64n) | 3n, (5n << 64n) | 4n, (6n << 64n) | 0n];
    const keys = positions.map((position) => Buffer.from(positionKey(position)));
    expect(keys.map((key, i) => (i === 0 ? 0 : Buffer.compare(keys[i - 1]!, key)))).toEqual([
      0, -1, -1, -1, -1, -1, -1, -1,
    ]);
  });
});

describe('SqliteTemporalIndex', () => {
  it('answers each version of a pet within the positions it held', async () => {
    const { created, renamed } = await renamedPet();
    const index = new SqliteTemporalIndex(path.join(temp.dir, 'temporal.sqlite'), store, logger);
    index.start();
    await index.waitFor(renamed);
    expect([
      index.petAsOf(1, { position: created })?.name,
      index.petAsOf(1, { position: renamed })?.name,
    ]).toEqual(['Rex', 'Max']);
    expect(index.petAsOf(1, { position: created - 1n })).toBeUndefined();
    await index.stop();
  });

  it('ends a pet’s open version through the index of open versions, reading none of its others', async () => {
    const { renamed } = await renamedPet();
    const file = path.join(temp.dir, 'temporal.sqlite');
    const index = new SqliteTemporalIndex(file, store, logger);
    index.start();
    await index.waitFor(renamed);
    await index.stop();
    const db = new DatabaseSync(file);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${CLOSE_OPEN_VERSION}`).all() as { detail: string }[];
    db.close();
    expect(plan.map((step) => step.detail)).toEqual([
      'SEARCH pet_versions USING INDEX pet_versions_open (pet_id=?)',
    ]);
  });

  it('lets processes share one index file, applying every event once', async () => {
    const { renamed } = await renamedPet();
    const file = path.join(temp.dir, 'temporal.sqlite');
    const indexes = [
      new SqliteTemporalIndex(file, store, logger),
      new SqliteTemporalIndex(file, store, logger),
    ];
    for (const index of indexes) index.start();
    await Promise.all(indexes.map((index) => index.waitFor(renamed)));
    for (const index of indexes) {
      expect(index.pageAsOf({ at: { timeMs: Date.parse('2030-01-01T12:00:00Z') }, limit: 10 }).pets).toEqual([
        { id: 1, name: 'Rex', categoryId: 1, version: 0 },
      ]);
    }
    await Promise.all(indexes.map((index) => index.stop()));
  });

  it('lists a pet once, as the lookup of one pet has it, when a clock stepped back between its events', async () => {
    await renamedPet(); // Rex on 1 January, Max on 2 January
    await store.appendToStream('pet-1', [
      {
        type: 'PetRenamed',
        data: { id: 1, name: 'Bo', previousName: 'Max' },
        metadata: metadata('2030-01-01T06:00:00.000Z'), // recorded by a clock a day behind
      },
    ]);
    const index = new SqliteTemporalIndex(path.join(temp.dir, 'temporal.sqlite'), store, logger);
    index.start();
    await index.waitFor((await store.headPosition())!);
    const at = { timeMs: Date.parse('2030-01-01T12:00:00Z') };
    const page = index.pageAsOf({ at, limit: 10 });
    const one = index.petAsOf(1, at);
    await index.stop();
    expect(page).toEqual({ pets: [{ id: 1, name: 'Bo', categoryId: 1, version: 2 }], hasMore: false });
    expect(one).toEqual({ id: 1, name: 'Bo', categoryId: 1, version: 2 });
  });

  it(`reads at most ${AS_OF_SCAN_LIMIT} versions for a page: where few pets match, it ends short with the cursor where it stopped`, async () => {
    await seedPets(store, AS_OF_SCAN_LIMIT + 5); // position 1: the id block; pet n at position n + 1
    const index = new SqliteTemporalIndex(path.join(temp.dir, 'temporal.sqlite'), store, logger);
    index.start();
    await index.waitFor((await store.headPosition())!);
    const at = { position: 3n }; // pets 1 and 2 existed then
    const first = index.pageAsOf({ at, limit: 10 });
    const second = index.pageAsOf({ at, limit: 10, after: first.scannedTo! });
    await index.stop();
    expect(first).toEqual({
      pets: [
        { id: 1, name: 'Pet 1', categoryId: 2, status: 'available', version: 0 },
        { id: 2, name: 'Pet 2', categoryId: 3, status: 'available', version: 0 },
      ],
      hasMore: true,
      scannedTo: AS_OF_SCAN_LIMIT - 1,
    });
    expect(second).toEqual({ pets: [], hasMore: false });
  });

  it(`reads a pet with more than ${AS_OF_SCAN_LIMIT} versions alone, as of its version then, and goes on past it`, async () => {
    const renames = Array.from({ length: AS_OF_SCAN_LIMIT }, (_, i) => ({
      type: 'PetRenamed',
      data: { id: 1, name: `Rex ${i + 1}`, previousName: i === 0 ? 'Rex' : `Rex ${i}` },
      metadata: metadata('2030-01-02T00:00:00.000Z'),
    }));
    await store.appendToStream('pet-1', [
      {
        type: 'PetCreated',
        data: { id: 1, name: 'Rex', categoryId: 1 },
        metadata: metadata('2030-01-01T00:00:00.000Z'),
      },
    ]);
    await store.appendToStream('pet-1', renames.slice(0, 5));
    const { position: at } = await store.appendToStream('pet-2', [
      {
        type: 'PetCreated',
        data: { id: 2, name: 'Tom', categoryId: 1 },
        metadata: metadata('2030-01-02T00:00:00.000Z'),
      },
    ]);
    const { position: head } = await store.appendToStream('pet-1', renames.slice(5));
    const index = new SqliteTemporalIndex(path.join(temp.dir, 'temporal.sqlite'), store, logger);
    index.start();
    await index.waitFor(head);
    const first = index.pageAsOf({ at: { position: at }, limit: 10 });
    const second = index.pageAsOf({ at: { position: at }, limit: 10, after: first.scannedTo! });
    await index.stop();
    expect(first).toEqual({
      pets: [{ id: 1, name: 'Rex 5', categoryId: 1, version: 5 }],
      hasMore: true,
      scannedTo: 1,
    });
    expect(second).toEqual({ pets: [{ id: 2, name: 'Tom', categoryId: 1, version: 0 }], hasMore: false });
  });

  it('picks up where it stopped after a restart', async () => {
    const { renamed } = await renamedPet();
    const file = path.join(temp.dir, 'temporal.sqlite');
    const first = new SqliteTemporalIndex(file, store, logger);
    first.start();
    await first.waitFor(renamed);
    await first.stop();
    const removed = await store.appendToStream('pet-1', [
      { type: 'PetRemoved', data: { id: 1 }, metadata: metadata('2030-01-03T00:00:00.000Z') },
    ]);
    const second = new SqliteTemporalIndex(file, store, logger);
    expect(second.checkpoint).toBe(renamed);
    second.start();
    await second.waitFor(removed.position);
    expect(second.petAsOf(1, { position: removed.position })).toBeUndefined();
    expect(second.petAsOf(1, { position: renamed })?.name).toBe('Max');
    await second.stop();
  });

  it('drops what it holds and follows from position 0 when the store is not the one it followed', async () => {
    const { renamed } = await renamedPet();
    const file = path.join(temp.dir, 'temporal.sqlite');
    const first = new SqliteTemporalIndex(file, store, logger);
    first.start();
    await first.waitFor(renamed);
    await first.stop();
    const other = openSqliteEventStore({ file: path.join(temp.dir, 'restored.sqlite') });
    const { position } = await other.appendToStream('pet-7', [
      {
        type: 'PetCreated',
        data: { id: 7, name: 'Bella', categoryId: 2 },
        metadata: metadata('2030-01-01T00:00:00.000Z'),
      },
    ]);
    const { logger: captured, lines } = capturedLogger();
    const second = new SqliteTemporalIndex(file, other, captured);
    second.start();
    await second.waitFor(position);
    expect(second.pageAsOf({ at: { timeMs: Date.parse('2030-02-01T00:00:00Z') }, limit: 10 }).pets).toEqual([
      { id: 7, name: 'Bella', categoryId: 2, version: 0 },
    ]);
    await second.stop();
    await other.close();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [
        40,
        'temporal index: not made from this event store (no event 2 there): rebuilding it from position 0',
      ],
    ]);
  });

  it('keeps an index that an earlier release, which recorded no event ids, advanced past its proof', async () => {
    const { renamed } = await renamedPet();
    const file = path.join(temp.dir, 'temporal.sqlite');
    const first = new SqliteTemporalIndex(file, store, logger);
    first.start();
    await first.waitFor(renamed);
    await first.stop();
    const { position } = await store.appendToStream('order-ids', [
      {
        type: 'OrderIdBlockReserved',
        data: { first: 1, last: 1000 },
        metadata: metadata('2030-01-03T00:00:00.000Z'),
      },
    ]);
    const earlierRelease = new DatabaseSync(file); // what it did with that event: the checkpoint alone
    earlierRelease.prepare("UPDATE meta SET value = ? WHERE key = 'checkpoint'").run(String(position));
    earlierRelease.close();
    const { logger: captured, lines } = capturedLogger();
    const second = new SqliteTemporalIndex(file, store, captured);
    second.start();
    await second.waitFor(position);
    expect(second.petAsOf(1, { position })?.name).toBe('Max');
    await second.stop();
    expect(lines).toEqual([]);
  });

  it('logs why a batch failed when SQLite has already rolled its transaction back (a full disk)', async () => {
    await renamedPet();
    const file = path.join(temp.dir, 'temporal.sqlite');
    await new SqliteTemporalIndex(file, store, logger).stop(); // creates the file and its tables
    const db = new DatabaseSync(file);
    db.exec(
      "CREATE TRIGGER full BEFORE INSERT ON pet_versions BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END",
    );
    db.close();
    const { logger: captured, lines } = capturedLogger();
    const index = new SqliteTemporalIndex(file, store, captured);
    index.start();
    await expect.poll(() => lines.length).toBe(1);
    await index.stop();
    expect(lines[0]).toMatchObject({
      msg: 'temporal index: subscription failed, resubscribing',
      err: { message: 'database or disk is full' },
    });
  });

  it('tells whoever waits past an unreadable event why, and logs that failure once while it repeats', async () => {
    const { created, renamed } = await renamedPet();
    rewriteEvent(path.join(temp.dir, 'events.sqlite'), Number(created), 'metadata', 'null');
    let subscriptions = 0;
    const counted = storeWith(store, {
      subscribeToAll: (options) => {
        subscriptions += 1;
        return store.subscribeToAll(options);
      },
    });
    const { logger: captured, lines } = capturedLogger();
    const index = new SqliteTemporalIndex(path.join(temp.dir, 'temporal.sqlite'), counted, captured);
    index.start();
    await expect(index.waitFor(renamed)).rejects.toBeInstanceOf(UnreadableEventError);
    await expect.poll(() => subscriptions, { timeout: 5_000 }).toBeGreaterThanOrEqual(3); // retried each second
    await index.stop();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [50, 'temporal index: subscription failed, resubscribing'],
    ]);
  });
});
