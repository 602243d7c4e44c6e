import { backup, DatabaseSync } from 'node:sqlite';
import { SQLITE_CORRUPT, SQLITE_NOTADB, sqlitePrimaryCode } from '../shared/sqlite-file.ts';
import { openSqliteDatabase } from './sqlite-database.ts';

/** What a backup of the embedded store holds, read from the copy itself. */
export type SqliteBackup = {
  readonly events: number;
  /** The position of its last event; undefined when it holds none. */
  readonly lastPosition: bigint | undefined;
};

/** A failure of writing or reading the copy, not of the store: its cause is SQLite's error. */
export class BackupCopyError extends Error {
  constructor(cause: unknown) {
    super('the copy failed', { cause });
    this.name = 'BackupCopyError';
  }
}

/**
 * Every page in one step. SQLite's online backup starts again from the first page whenever another
 * connection commits between two steps, so a store that takes writes steadily might never finish in
 * small steps; in one step it is one read transaction, which in WAL mode holds no writer back.
 */
const ALL_PAGES = 2 ** 31 - 1;

/**
 * Copies the embedded store at `file` into `copy` (a file that does not exist or is empty) with
 * SQLite's online backup: the copy is the store as one transaction saw it, a prefix of its events,
 * while other processes go on writing. Then reads from the copy what it holds. A store that cannot
 * be opened, or that SQLite finds damaged, throws SQLite's error; any other failure is the copy's,
 * a BackupCopyError.
 */
export async function backupSqliteStore(file: string, copy: string): Promise<SqliteBackup> {
  const source = openSqliteDatabase(file, { mustExist: true });
  try {
    await backup(source, copy, { rate: ALL_PAGES });
  } catch (error) {
    const code = sqlitePrimaryCode(error);
    throw code === SQLITE_CORRUPT || code === SQLITE_NOTADB ? error : new BackupCopyError(error);
  } finally {
    source.close();
  }
  try {
    return heldBy(copy);
  } catch (error) {
    throw storeDamage(file, error) ?? new BackupCopyError(error);
  }
}

/**
 * The copy holds the store's pages as they were, damaged ones included (the backup API copies pages
 * without reading what is in them): a copy SQLite finds damaged is a damaged store's when the store
 * itself reads as damaged. That error, the store's, or undefined where the store reads well.
 */
function storeDamage(file: string, copyError: unknown): unknown {
  if (sqlitePrimaryCode(copyError) !== SQLITE_CORRUPT) return undefined;
  try {
    heldBy(file);
  } catch (error) {
    if (sqlitePrimaryCode(error) === SQLITE_CORRUPT) return error;
  }
  return undefined;
}

/**
 * Read with a connection that may write: a read-only one leaves the -wal and -shm files it makes
 * beside the copy, where closing the last connection removes them.
 */
function heldBy(copy: string): SqliteBackup {
  const db = new DatabaseSync(copy);
  try {
    const count = db.prepare('SELECT COUNT(*), MAX(position) FROM events');
    count.setReturnArrays(true);
    const [events, last] = count.get() as unknown as [number, number | null];
    return { events, lastPosition: last === null ? undefined : BigInt(last) };
  } finally {
    db.close();
  }
}
