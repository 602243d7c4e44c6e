import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { BUSY_TIMEOUT_MS, retryWhileBusy } from '../shared/sqlite-busy.ts';

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
