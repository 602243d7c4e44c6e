import type { DatabaseSync } from 'node:sqlite';
import { openWalDatabase } from '../shared/sqlite-file.ts';

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
  return openWalDatabase(file, { synchronous: 'FULL', schema: SCHEMA });
}
