import { statfsSync } from 'node:fs';
import path from 'node:path';
import { StoreUnavailableError } from '../application/ports/event-store.ts';
import { SQLITE_BUSY, SQLITE_FULL, SQLITE_IOERR, sqlitePrimaryCode } from '../shared/sqlite-file.ts';

/**
 * The embedded store's errors that pass without a restart, as the port's StoreUnavailableError:
 * a full disk (SQLITE_FULL, or an I/O error while the file system has no byte left: SQLite fails
 * some writes of a full disk as SQLITE_IOERR), and a write lock another process held past the busy
 * timeout (SQLITE_BUSY). Anything else, a damaged file (SQLITE_CORRUPT) or an I/O error of a disk
 * with room, is undefined: it stays a fault.
 */
export function sqliteStoreUnavailable(
  error: unknown,
  file: string,
  freeBytes: (file: string) => number | undefined = freeBytesBeside,
): StoreUnavailableError | undefined {
  const code = sqliteCodeOnDisk(error, () => freeBytes(file));
  const said = `(SQLite: ${String((error as { errstr?: unknown }).errstr)})`;
  if (code === SQLITE_FULL) {
    return new StoreUnavailableError('disk_full', `the disk holding ${path.dirname(file)} is full ${said}`, {
      cause: error,
    });
  }
  if (code === SQLITE_BUSY) {
    return new StoreUnavailableError(
      'write_lock_held',
      `another process held the write lock of ${file} past the busy timeout ${said}`,
      { cause: error },
    );
  }
  return undefined;
}

/**
 * SQLite's primary code for `error`, with an I/O error taken as SQLITE_FULL while the file system
 * has no byte left: SQLite fails some writes of a full disk as SQLITE_IOERR (growing the -shm file
 * when a store is opened, SQLITE_IOERR_SHMSIZE, is one). `freeBytes` is asked only then.
 */
export function sqliteCodeOnDisk(error: unknown, freeBytes: () => number | undefined): number | undefined {
  const code = sqlitePrimaryCode(error);
  return code === SQLITE_IOERR && freeBytes() === 0 ? SQLITE_FULL : code;
}

/** The bytes this user may still write on the file system that holds `file`; undefined if unknown. */
export function freeBytesBeside(file: string): number | undefined {
  try {
    const { bavail, bsize } = statfsSync(path.dirname(file));
    return bavail * bsize;
  } catch {
    return undefined;
  }
}
