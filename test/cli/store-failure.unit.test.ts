import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../src/application/ports/event-store.ts';
import { prepareStore, storeFailure } from '../../src/cli/store.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** What node:sqlite throws when opening a store whose -shm file cannot grow (SQLITE_IOERR_SHMSIZE). */
const shmSizeError = Object.assign(new Error('disk I/O error'), {
  code: 'ERR_SQLITE_ERROR',
  errcode: 4874,
  errstr: 'disk I/O error',
});

let temp: ReturnType<typeof makeTempDir>;
let store: string;
beforeAll(() => {
  temp = makeTempDir();
  vi.spyOn(process.stderr, 'write').mockReturnValue(true); // prepareStore's line naming the store
  prepareStore({ dataDir: temp.dir, eventStoreUrl: undefined }, 'events', 'may-create');
  vi.restoreAllMocks();
  store = path.join(temp.dir, 'events.sqlite');
});
afterAll(() => temp.remove());

describe('a store SQLite fails to open with an I/O error', () => {
  it('on a file system with no space left: the disk is full, not a disk to check or a backup to restore', () => {
    expect(storeFailure(shmSizeError, () => 0)?.message).toBe(
      `cannot use the event store ${store}: the disk is full (SQLite: disk I/O error). Free some space on its file system.`,
    );
  });

  it('on a file system with space left: the disk failed', () => {
    expect(storeFailure(shmSizeError, () => 1 << 20)?.message).toBe(
      `cannot use the event store ${store}: the disk failed to read or write it (SQLite: disk I/O error). Check the disk; if the file itself is damaged, restore it from a backup.`,
    );
  });
});

describe('a write the store refused for now (StoreUnavailableError)', () => {
  it('is said in SQLite’s words, as at opening: a command that writes to a full disk says the disk is full', () => {
    const full = Object.assign(new Error('database or disk is full'), {
      code: 'ERR_SQLITE_ERROR',
      errcode: 13,
      errstr: 'database or disk is full',
    });
    const refused = new StoreUnavailableError('disk_full', `the disk holding ${temp.dir} is full`, {
      cause: full,
    });
    expect(storeFailure(refused)?.message).toBe(
      `cannot use the event store ${store}: the disk is full (SQLite: database or disk is full). Free some space on its file system.`,
    );
  });

  it('says whose lock held it up, not a Retry-After, when SQLite has no words of its own for it (SQLITE_BUSY)', () => {
    const busy = Object.assign(new Error('database is locked'), {
      code: 'ERR_SQLITE_ERROR',
      errcode: 5,
      errstr: 'database is locked',
    });
    const refused = new StoreUnavailableError(
      'write_lock_held',
      `another process held the write lock of ${store} past the busy timeout (SQLite: database is locked)`,
      { cause: busy },
    );
    expect(storeFailure(refused)?.message).toBe(
      `cannot write to the event store ${store} for now: another process held the write lock of ${store} past the busy timeout (SQLite: database is locked). Run the command again once that process has let go.`,
    );
  });
});
