import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * Opening a SQLite file in WAL mode that other processes (`petstore start --workers N`) may be
 * opening at the same moment: the event store's and the temporal index's alike.
 */

export const BUSY_TIMEOUT_MS = 10_000;

/** SQLite's primary result codes this service acts on. */
export const SQLITE_BUSY = 5;
export const SQLITE_IOERR = 10;
export const SQLITE_CORRUPT = 11;
export const SQLITE_FULL = 13;
export const SQLITE_NOTADB = 26;

/** Deletes a database file and those SQLite keeps beside it (-journal, -wal, -shm), whichever are there. */
export function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/** The primary result code of an error node:sqlite threw (SQLITE_BUSY…), or undefined for another error. */
export function sqlitePrimaryCode(error: unknown): number | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  return code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' ? errcode & 0xff : undefined;
}

/**
 * The file, created with its folder if need be, in WAL mode (readers never wait for the writer),
 * with `synchronous` as given and `schema` run (it must be idempotent: CREATE … IF NOT EXISTS).
 * `check`, if given, runs first, before anything is written to the file: it throws to refuse it.
 */
export function openWalDatabase(
  file: string,
  options: {
    readonly synchronous: 'FULL' | 'NORMAL';
    readonly schema: string;
    readonly check?: (db: DatabaseSync) => void;
  },
): DatabaseSync {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  try {
    // First, so that a process opening the file while another sets it up waits instead of failing.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    options.check?.(db);
    // Where waiting could deadlock, SQLite answers SQLITE_BUSY at once instead of calling the busy
    // handler: switching a new file to WAL while another process sets it up is such a case.
    retryWhileBusy(() => db.exec('PRAGMA journal_mode = WAL'));
    db.exec(`PRAGMA synchronous = ${options.synchronous}`);
    retryWhileBusy(() => db.exec(options.schema));
    return db;
  } catch (error) {
    db.close(); // a damaged file is not left open (it may be renamed aside and opened anew)
    throw error;
  }
}

/**
 * Runs `statement` again, a few milliseconds apart, for as long as SQLite answers SQLITE_BUSY and
 * at most BUSY_TIMEOUT_MS. Only for opening a file: it waits synchronously, as opening does.
 */
export function retryWhileBusy(statement: () => void): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      statement();
      return;
    } catch (error) {
      if (sqlitePrimaryCode(error) !== SQLITE_BUSY || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}
