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

/**
 * A SQLite file that is not an event store: another database (the temporal index, or another
 * application's, restored in its place), or, where a store must exist, one with no tables at all
 * (a store copied without its -wal file, whose tables were all still in it).
 */
export class NotAnEventStoreError extends Error {
  readonly file: string;
  /** The tables it holds, none of them `events`. */
  readonly tables: readonly string[];

  constructor(file: string, tables: readonly string[]) {
    super(
      tables.length === 0
        ? `${file} is a SQLite database without tables`
        : `${file} is a SQLite database without an events table`,
    );
    this.name = 'NotAnEventStoreError';
    this.file = file;
    this.tables = tables;
  }
}

/**
 * `mustExist`: the file must already be a store, and is never made one. Without it a file with no
 * tables (new, or 0 bytes) becomes a store; a file with tables but no `events` table never does:
 * running the schema would add a table to someone else's database and serve it as an empty store.
 */
export function openSqliteDatabase(
  file: string,
  options: { readonly mustExist?: boolean } = {},
): DatabaseSync {
  return openWalDatabase(file, {
    synchronous: 'FULL',
    schema: SCHEMA,
    check: (db) => {
      const tables = db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .all()
        .map((row) => String(row.name));
      if (tables.includes('events')) return;
      if (tables.length > 0 || options.mustExist === true) throw new NotAnEventStoreError(file, tables);
    },
  });
}
