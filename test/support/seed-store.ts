import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';

/** Opens the embedded store of a data directory, for a test to write to it as the service would. */
export function openDataDirStore(dataDir: string): EventStore {
  return openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite') });
}

/** Appends `count` PetCreated events (pets `first`… with the id block that covers them) in large groups. */
export async function seedPets(store: EventStore, count: number, first = 1): Promise<void> {
  const metadata = (schemaVersion = 1) => ({
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'seed',
    schemaVersion,
  });
  await store.appendToStream('pet-ids', [
    { type: 'PetIdBlockReserved', data: { first, last: first + count - 1 }, metadata: metadata() },
  ]);
  for (let start = first; start < first + count; start += 10_000) {
    const appends: Promise<unknown>[] = [];
    for (let id = start; id < Math.min(start + 10_000, first + count); id++) {
      const data = { id, name: `Pet ${id}`, categoryId: 1 + (id % 5), status: 'available' };
      appends.push(store.appendToStream(`pet-${id}`, [{ type: 'PetCreated', data, metadata: metadata() }]));
    }
    await Promise.all(appends);
  }
}

/** Seeds the embedded store of `dataDir` with `count` pets, as seedPets does, and closes it. */
export async function seedDataDir(dataDir: string, count: number): Promise<void> {
  const store = openDataDirStore(dataDir);
  try {
    await seedPets(store, count);
  } finally {
    await store.close();
  }
}

/** Appends `count` events of a type that no query shows (`Noise`), in streams of 5,000: a store for a replay to read through. */
export async function appendNoise(store: EventStore, count: number): Promise<void> {
  for (let left = count; left > 0; left -= 5000) {
    const events = Array.from({ length: Math.min(left, 5000) }, () => ({
      type: 'Noise',
      data: {},
      metadata: {
        eventId: randomUUID(),
        occurredAt: new Date().toISOString(),
        correlationId: 'c',
        schemaVersion: 1,
      },
    }));
    await store.appendToStream(`noise-${randomUUID()}`, events);
  }
}
