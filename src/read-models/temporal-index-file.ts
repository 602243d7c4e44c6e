import { renameSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import type { EventStore } from '../application/ports/event-store.ts';
import { SqliteTemporalIndex } from './temporal-index.ts';

/** SQLite's primary result codes for a file that is not (or no longer) a usable database. */
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

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
 * TemporalIndexFileError. Several processes (`--workers`) may find the same damaged file: only the
 * one that still finds the file it failed on moves it, and the others open the new one.
 */
export function openTemporalIndex(file: string, store: EventStore, logger: Logger): SqliteTemporalIndex {
  const found = statSync(file, { throwIfNoEntry: false })?.ino;
  try {
    return new SqliteTemporalIndex(file, store, logger);
  } catch (error) {
    if (!isDamage(error)) throw new TemporalIndexFileError(file, { cause: error });
    if (found !== undefined && statSync(file, { throwIfNoEntry: false })?.ino === found)
      setAside(file, error, logger);
  }
  try {
    return new SqliteTemporalIndex(file, store, logger);
  } catch (error) {
    throw new TemporalIndexFileError(file, { cause: error });
  }
}

function isDamage(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (code !== 'ERR_SQLITE_ERROR' || typeof errcode !== 'number') return false;
  return [SQLITE_CORRUPT, SQLITE_NOTADB].includes(errcode & 0xff);
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
