import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventStore, StoreUnavailableError } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { sqliteStoreUnavailable } from '../../src/eventstore/sqlite-unavailable.ts';
import { damagePages } from '../support/damage.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * The embedded store's failures that pass (a full disk, a held write lock) become the port's
 * StoreUnavailableError, a 503; a damaged file stays a fault. Every SQLite error here is a real
 * one: SQLITE_FULL from `PRAGMA max_page_count`, SQLITE_BUSY from a lock another connection holds.
 */

let temp: ReturnType<typeof makeTempDir>;
let file: string;
beforeEach(() => {
  temp = makeTempDir();
  file = path.join(temp.dir, 'events.sqlite');
});
afterEach(() => temp.remove());

/** What `statement` throws on `db`. */
function thrownBy(statement: () => void): unknown {
  try {
    statement();
  } catch (error) {
    return error;
  }
  throw new Error('the statement did not fail');
}

/** SQLITE_FULL, as SQLite reports a database that may not grow. */
function fullDatabaseError(): unknown {
  const db = new DatabaseSync(file);
  try {
    db.exec('CREATE TABLE t (b BLOB); PRAGMA max_page_count = 2');
    return thrownBy(() => {
      for (;;) db.exec('INSERT INTO t VALUES (zeroblob(1000))');
    });
  } finally {
    db.close();
  }
}

const newEvent = () => ({
  type: 'PetCreated',
  data: { name: 'Rex' },
  metadata: {
    eventId: randomUUID(),
    occurredAt: '2030-01-15T10:00:00.000Z',
    correlationId: 'c',
    schemaVersion: 1,
  },
});

describe('sqliteStoreUnavailable', () => {
  it('makes SQLITE_FULL a disk_full StoreUnavailableError: 503 store_unavailable with Retry-After', () => {
    const error = sqliteStoreUnavailable(fullDatabaseError(), file);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect([error?.status, error?.code, error?.reason, error?.headers]).toEqual([
      503,
      'store_unavailable',
      'disk_full',
      { 'Retry-After': '10' },
    ]);
    expect(error?.detail).toBe(`the disk holding ${temp.dir} is full (SQLite: database or disk is full)`);
  });

  it('makes an I/O error while the disk has no byte left disk_full, as a full disk fails some writes', () => {
    // SQLITE_IOERR_SHMSIZE (4874), as opening a store on a full disk fails to grow its -shm file.
    const ioError = Object.assign(new Error('disk I/O error'), {
      code: 'ERR_SQLITE_ERROR',
      errcode: 4874,
      errstr: 'disk I/O error',
    });
    expect(sqliteStoreUnavailable(ioError, file, () => 0)?.reason).toBe('disk_full');
  });

  it('leaves an I/O error of a disk with room a fault', () => {
    const ioError = Object.assign(new Error('disk I/O error'), {
      code: 'ERR_SQLITE_ERROR',
      errcode: 4874,
      errstr: 'disk I/O error',
    });
    expect(sqliteStoreUnavailable(ioError, file, () => 1 << 20)).toBeUndefined();
  });

  it('makes SQLITE_BUSY (a write lock held past the busy timeout) write_lock_held, retried after 1 s', () => {
    const holder = new DatabaseSync(file);
    const waiter = new DatabaseSync(file);
    try {
      holder.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x); BEGIN IMMEDIATE');
      waiter.exec('PRAGMA busy_timeout = 0');
      const error = sqliteStoreUnavailable(
        thrownBy(() => waiter.exec('BEGIN IMMEDIATE')),
        file,
      );
      expect([error?.reason, error?.headers]).toEqual(['write_lock_held', { 'Retry-After': '1' }]);
    } finally {
      holder.close();
      waiter.close();
    }
  });

  it('leaves SQLITE_CORRUPT (a damaged file) a fault', () => {
    const db = new DatabaseSync(file);
    db.exec('CREATE TABLE t (b BLOB)');
    for (let i = 0; i < 100; i++) db.exec('INSERT INTO t VALUES (randomblob(1000))');
    db.close();
    damagePages(file);
    const damaged = new DatabaseSync(file);
    try {
      const error = thrownBy(() => damaged.prepare('SELECT count(*), sum(length(b)) FROM t').get());
      expect((error as { errcode?: unknown }).errcode).toBe(11);
      expect(sqliteStoreUnavailable(error, file)).toBeUndefined();
    } finally {
      damaged.close();
    }
  });
});

describe('an embedded store that cannot grow (PETSTORE_FAILPOINT=store-cannot-grow)', () => {
  let store: EventStore;
  let side: DatabaseSync;
  beforeEach(() => {
    store = openSqliteEventStore({ file, failpoint: 'store-cannot-grow' });
    // Pages the writer may fill, and that are freed to let it write again: 400 KiB of them.
    side = new DatabaseSync(file);
    side.exec('CREATE TABLE ballast (b BLOB)');
    for (let i = 0; i < 100; i++) side.exec('INSERT INTO ballast VALUES (zeroblob(4000))');
  });
  afterEach(async () => {
    side.close();
    await store.close();
  });

  /** Appends until the store refuses one; resolves the refusal. */
  async function fill(): Promise<unknown> {
    for (let i = 0; i < 10_000; i++) {
      const refused = await store.appendToStream(`pet-${i}`, [newEvent()]).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (refused !== undefined) return refused;
    }
    throw new Error('the store never filled');
  }

  it('refuses an append with StoreUnavailableError once its pages are full, writing none of it', async () => {
    const refused = await fill();
    const head = await store.headPosition();
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect((refused as StoreUnavailableError).reason).toBe('disk_full');
    await expect(store.appendToStream('pet-refused', [newEvent()])).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect([await store.headPosition(), await store.readStream('pet-refused')]).toEqual([head, []]);
  });

  it('says it cannot take a write while full, and takes appends again once pages are freed', async () => {
    await fill();
    await expect(store.checkWritable()).rejects.toBeInstanceOf(StoreUnavailableError);
    side.exec('DELETE FROM ballast');
    await expect(store.checkWritable()).resolves.toBeUndefined();
    await expect(store.appendToStream('pet-after', [newEvent()])).resolves.toMatchObject({
      nextExpectedRevision: 0n,
    });
  });
});

describe('the probe of an embedded store whose write lock another process holds', () => {
  let store: EventStore;
  let holder: DatabaseSync;
  beforeEach(async () => {
    store = openSqliteEventStore({ file });
    await store.appendToStream('pet-1', [newEvent()]);
    holder = new DatabaseSync(file);
    holder.exec('BEGIN IMMEDIATE');
  });
  afterEach(async () => {
    holder.close();
    await store.close();
  });

  it('answers write_lock_held within a readiness check, not after the 10 s busy timeout', async () => {
    const started = performance.now();
    const refused = await store.checkWritable().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect([
      (refused as StoreUnavailableError | undefined)?.reason,
      performance.now() - started < 1_000,
    ]).toEqual(['write_lock_held', true]);
  }, 15_000);
});
