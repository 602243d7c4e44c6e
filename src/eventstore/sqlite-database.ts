import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * Opening the embedded store's file, for the connection that reads (main thread) and the one that
 * writes (the writer's worker thread) alike: WAL, so that readers never wait for the writer, and
 * `synchronous=FULL`, so that a commit returns only once the WAL is fsynced.
 */

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream   TEXT    NOT NULL,
    revision INTEGER NOT NULL,
    type     TEXT    NOT NULL,
    data     TEXT    NOT NULL,
    metadata TEXT    NOT NULL,
    UNIQUE (stream, revision)
  ) STRICT;
`;

export const BUSY_TIMEOUT_MS = 10_000;
const SQLITE_BUSY = 5;

export function openSqliteDatabase(file: string): DatabaseSync {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  // First, so that a process opening the file while another sets it up waits instead of failing.
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Where waiting could deadlock, SQLite answers SQLITE_BUSY at once instead of calling the busy
  // handler: switching a new file to WAL while another process writes to it is such a case.
  retryWhileBusy(() => db.exec('PRAGMA journal_mode = WAL'));
  db.exec('PRAGMA synchronous = FULL');
  retryWhileBusy(() => db.exec(SCHEMA));
  return db;
}

/**
 * Runs `statement` again, a few milliseconds apart, for as long as SQLite answers SQLITE_BUSY and
 * at most BUSY_TIMEOUT_MS. Only for opening the store: it waits synchronously, as opening does.
 */
function retryWhileBusy(statement: () => void): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      statement();
      return;
    } catch (error) {
      const code = (error as { errcode?: unknown }).errcode;
      if (typeof code !== 'number' || (code & 0xff) !== SQLITE_BUSY || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}
