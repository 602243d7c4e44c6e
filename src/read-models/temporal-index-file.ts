import { closeSync, openSync, renameSync, statSync, unlinkSync } from 'node:fs';
import type { Logger } from 'pino';
import type { EventStore } from '../application/ports/event-store.ts';
import { SQLITE_CORRUPT, SQLITE_NOTADB, sqlitePrimaryCode } from '../shared/sqlite-file.ts';
import { SqliteTemporalIndex } from './temporal-index.ts';

/** The index's own file failed, not the event store: says which file, with SQLite's error as cause. */
export class TemporalIndexFileError extends Error {
  readonly file: string;
  constructor(file: string, options: { cause: unknown }) {
    super(`cannot use the temporal index ${file}`, options);
    this.file = file;
  }
}

/**
 * Opens the temporal index in `file`. The index holds nothing the events do not, so a file SQLite
 * finds damaged (or not a database at all) is renamed aside, with its WAL files, and the index is
 * rebuilt from the events: `logger` warns, naming both paths. Any other failure to open it is a
 * TemporalIndexFileError. Several processes (`--workers`, a `catalogue` beside a server) may find
 * the same damaged file at once: each moves it aside only under a lock file, and only if it is still
 * the file it failed on, so that none moves the index another has just rebuilt.
 */
export function openTemporalIndex(file: string, store: EventStore, logger: Logger): SqliteTemporalIndex {
  for (let attempt = 1; ; attempt++) {
    const found = inode(file);
    try {
      return new SqliteTemporalIndex(file, store, logger);
    } catch (error) {
      if (!isDamage(error) || attempt === MAX_ATTEMPTS)
        throw new TemporalIndexFileError(file, { cause: error });
      withRepairLock(file, () => {
        if (found !== undefined && inode(file) === found) setAside(file, error, logger);
      });
    }
  }
}

/** A repair, then the fresh file another process may have made meanwhile: neither fails twice in a row. */
const MAX_ATTEMPTS = 3;

function inode(file: string): number | undefined {
  return statSync(file, { throwIfNoEntry: false })?.ino;
}

/**
 * Runs `repair` holding `<file>.repairing`, created exclusively: a process that finds it waits for
 * it to go. One left by a process that died holding it (its repair is a rename or two) is stale
 * after LOCK_STALE_MS and taken over.
 */
function withRepairLock(file: string, repair: () => void): void {
  const lock = `${file}.repairing`;
  const deadline = Date.now() + LOCK_STALE_MS;
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new TemporalIndexFileError(file, { cause: error });
      if (Date.now() > deadline) unlinkStale(lock);
      else Atomics.wait(PAUSE, 0, 0, 20);
    }
  }
  try {
    repair();
  } finally {
    closeSync(fd);
    unlinkSync(lock);
  }
}

const LOCK_STALE_MS = 10_000;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function unlinkStale(lock: string): void {
  try {
    unlinkSync(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** A file that is not (or no longer) a usable database. */
function isDamage(error: unknown): boolean {
  const code = sqlitePrimaryCode(error);
  return code === SQLITE_CORRUPT || code === SQLITE_NOTADB;
}

function setAside(file: string, damage: unknown, logger: Logger): void {
  const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(file, aside);
    // A WAL left beside the damaged file must not be replayed into the new one.
    for (const suffix of ['-wal', '-shm']) {
      if (statSync(`${file}${suffix}`, { throwIfNoEntry: false }) !== undefined)
        renameSync(`${file}${suffix}`, `${aside}${suffix}`);
    }
  } catch (error) {
    throw new TemporalIndexFileError(file, { cause: error });
  }
  logger.warn(
    { file, movedTo: aside, err: damage },
    `the temporal index ${file} is damaged (${(damage as Error).message}): moved it to ${aside}; rebuilding it from the events`,
  );
}
