import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { PET_STATUSES, PET_CREATED_SCHEMA_VERSION, petStreamName, type Pet } from '../src/domain/pets.ts';
import { PET_IDS } from '../src/domain/id-blocks.ts';
import type { EventMetadata, EventStore, NewEvent } from '../src/application/ports/event-store.ts';
import { openSqliteDatabase } from '../src/eventstore/sqlite-database.ts';

/**
 * Seeds a data directory with pets by appending events straight to the embedded store: HTTP would
 * take minutes for a million. The events have the shape the application writes (stream `pet-<id>`,
 * `PetCreated`, metadata as from newEventMetadata), and one `PetIdBlockReserved` covers their ids so
 * that a server started on the directory hands out ids after them.
 */

/** Appends queued in one tick commit in one transaction, so this many share one fsync. */
const BATCH = 20_000;
/** Rows per transaction when a fresh file is written directly (one fsync each). */
const DIRECT_BATCH = 100_000;

export function eventsFile(dataDir: string): string {
  return path.join(dataDir, 'events.sqlite');
}

/** Pet number `id`: a third of the pets per status, a few without one, names of realistic length. */
export function seededPet(id: number): Pet {
  const pet = { id, name: `Pet ${id} the ${id % 2 === 0 ? 'dog' : 'cat'}`, categoryId: 1 + (id % 7) };
  const status = id % 10 === 9 ? undefined : PET_STATUSES[id % 3];
  return status === undefined ? pet : { ...pet, status };
}

function metadata(schemaVersion: number): EventMetadata {
  return {
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'bench-seed',
    schemaVersion,
  };
}

/** Appends `count` PetCreated events (ids 1..count) and the id block that covers them. */
export async function seedPets(store: EventStore, count: number): Promise<void> {
  await store.appendToStream(
    PET_IDS.stream,
    [{ type: 'PetIdBlockReserved', data: { first: 1, last: count }, metadata: metadata(1) }],
    { expectedRevision: 'no_stream' },
  );
  for (let first = 1; first <= count; first += BATCH) {
    const appends: Promise<unknown>[] = [];
    for (let id = first; id < Math.min(first + BATCH, count + 1); id++) {
      const event: NewEvent = {
        type: 'PetCreated',
        data: seededPet(id),
        metadata: metadata(PET_CREATED_SCHEMA_VERSION),
      };
      appends.push(store.appendToStream(petStreamName(id), [event], { expectedRevision: 'no_stream' }));
    }
    await Promise.all(appends);
  }
}

/**
 * Seeds a fresh data directory, so that a server can open it. The rows are the ones `seedPets`
 * would append through the store's writer (one stream of one event per pet, in id order), written
 * with one connection in large transactions: five million pets take a minute or so, not several.
 */
export async function seedDataDir(dataDir: string, count: number): Promise<void> {
  const db = openSqliteDatabase(eventsFile(dataDir));
  try {
    const head = db.prepare('SELECT COUNT(*) FROM events').get() as { 'COUNT(*)': number };
    if (head['COUNT(*)'] !== 0) throw new Error(`${eventsFile(dataDir)} is not empty`);
    const insert = db.prepare(
      'INSERT INTO events (stream, revision, type, data, metadata) VALUES (?, 0, ?, ?, ?)',
    );
    const block = { first: 1, last: count };
    db.exec('BEGIN');
    insert.run(PET_IDS.stream, PET_IDS.eventType, JSON.stringify(block), JSON.stringify(metadata(1)));
    for (let id = 1; id <= count; id++) {
      const data = JSON.stringify(seededPet(id));
      const meta = JSON.stringify(metadata(PET_CREATED_SCHEMA_VERSION));
      insert.run(petStreamName(id), 'PetCreated', data, meta);
      if (id % DIRECT_BATCH === 0) db.exec('COMMIT; BEGIN');
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
