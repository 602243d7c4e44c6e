import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { storeFailure } from '../../src/cli/store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { openTemporalIndex, TemporalIndexFileError } from '../../src/read-models/temporal-index-file.ts';
import { capturedLogger } from '../support/log-lines.ts';
import { makeTempDir } from '../support/temp-dir.ts';

let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
let file: string;
beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  file = path.join(temp.dir, 'temporal-index.sqlite');
});
afterEach(async () => {
  await store.close();
  temp.remove();
});

async function createRex(): Promise<bigint> {
  const { position } = await store.appendToStream('pet-1', [
    {
      type: 'PetCreated',
      data: { id: 1, name: 'Rex', categoryId: 1 },
      metadata: {
        eventId: randomUUID(),
        occurredAt: '2030-01-01T00:00:00.000Z',
        correlationId: 'c',
        schemaVersion: 1,
      },
    },
  ]);
  return position;
}

it('sets a file that is not a database aside and rebuilds the index from the events', async () => {
  const position = await createRex();
  const garbage = Buffer.alloc(8192, 7);
  writeFileSync(file, garbage);
  const { logger, lines } = capturedLogger('warn');
  const index = openTemporalIndex(file, store, logger);
  try {
    index.start();
    await index.waitFor(position);
    expect(index.petAsOf(1, { position })).toEqual({ id: 1, name: 'Rex', categoryId: 1, version: 0 });
  } finally {
    await index.stop();
  }
  const aside = readdirSync(temp.dir).find((name) =>
    /^temporal-index\.sqlite\.damaged-[\dTZ-]+$/.test(name),
  )!;
  expect(readFileSync(path.join(temp.dir, aside))).toEqual(garbage);
  expect(lines).toEqual([
    expect.objectContaining({
      level: 40,
      file,
      movedTo: path.join(temp.dir, aside),
      msg: `the temporal index ${file} is damaged (file is not a database): moved it to ${path.join(temp.dir, aside)}; rebuilding it from the events`,
    }),
  ]);
});

it('names the index file, not the event store, when it cannot be opened for another reason', () => {
  mkdirSync(file);
  let failure: unknown;
  try {
    openTemporalIndex(file, store, pino({ level: 'silent' }));
  } catch (error) {
    failure = error;
  }
  expect(failure).toBeInstanceOf(TemporalIndexFileError);
  expect(failure).toMatchObject({
    message: `cannot use the temporal index ${file}`,
    cause: { code: 'ERR_SQLITE_ERROR', errstr: 'unable to open database file' },
  });
  expect(readdirSync(temp.dir).sort()).toEqual([
    'events.sqlite',
    'events.sqlite-shm',
    'events.sqlite-wal',
    'temporal-index.sqlite',
  ]);
});

it('refuses an index of another format, saying once what to do', async () => {
  await openTemporalIndex(file, store, pino({ level: 'silent' })).stop();
  const db = new DatabaseSync(file);
  db.exec("UPDATE meta SET value = '2' WHERE key = 'format'");
  db.close();
  let failure: unknown;
  try {
    openTemporalIndex(file, store, pino({ level: 'silent' }));
  } catch (error) {
    failure = error;
  }
  expect(storeFailure(failure)?.message).toBe(
    `cannot use the temporal index ${file}: it holds the temporal index format 2, not 1. It is derived from the events: delete it to rebuild it.`,
  );
});

const ROUNDS = 10;
const OPENER = path.join(import.meta.dirname, '../support/open-temporal-index.ts');

it('three processes that find one damaged index at the same instant move it aside once, and all open the rebuilt one', async () => {
  await createRex();
  await store.close();
  for (let round = 0; round < ROUNDS; round++) {
    // The last round's index, damaged: its WAL, which SQLite would replay over the damage, goes too.
    for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    writeFileSync(file, Buffer.alloc(8192, 7));
    const startAt = Date.now() + 1000; // past every process's start-up
    const outputs = await Promise.all(
      [1, 2, 3].map(
        async () => (await promisify(execFile)(process.execPath, [OPENER, temp.dir, String(startAt)])).stdout,
      ),
    );
    expect(outputs).toEqual(['opened\n', 'opened\n', 'opened\n']);
  }
  const aside = readdirSync(temp.dir).filter((name) => name.startsWith('temporal-index.sqlite.damaged-'));
  expect(aside.map((name) => readFileSync(path.join(temp.dir, name)).equals(Buffer.alloc(8192, 7)))).toEqual(
    Array.from({ length: ROUNDS }, () => true),
  );
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
});
