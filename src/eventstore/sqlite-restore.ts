import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { SQLITE_BUSY, sqlitePrimaryCode } from '../shared/sqlite-file.ts';
import type { SqliteBackup } from './sqlite-backup.ts';
import { NotAnEventStoreError, openSqliteDatabase } from './sqlite-database.ts';

/** Why a backup cannot be restored, or a store cannot be replaced now: the message says it. */
export class RestoreRefusedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RestoreRefusedError';
  }
}

/** The last event of a stream: its revision, type and data. */
export type LastEvent = {
  readonly revision: number;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
};

/** What a restore needs of the store it replaces. */
export type ReplacedStore = {
  /**
   * The last position it gave: its last event's, or past it where a restore set its sequence there
   * and no event has taken one since; undefined when it gave none.
   */
  readonly lastPosition: bigint | undefined;
  /** The last event of each stream asked for that it holds. */
  readonly lastEvents: ReadonlyMap<string, LastEvent>;
};

/**
 * What the store at `file` holds that a restore keeps (ReplacedStore: the last position it gave, the
 * last event of each of `streams`), read with a connection in exclusive locking mode, which SQLite refuses while any other
 * connection has the store open (in WAL mode each one keeps the shared-memory index open: a server,
 * a forwarder, a command following events): then RestoreRefusedError. Closing that connection
 * checkpoints the store into its main file. Undefined when no file is there; `unreadable` when it
 * cannot be read (the damage a restore may be for).
 */
export function readUnusedStore(
  file: string,
  streams: readonly string[],
): ReplacedStore | 'unreadable' | undefined {
  if (!existsSync(file)) return undefined;
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { timeout: 0 });
  } catch {
    return 'unreadable';
  }
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (sqlitePrimaryCode(error) === SQLITE_BUSY)
      throw new RestoreRefusedError(
        `a process has the store ${file} open (a server, a forwarder, a command): stop every process that uses it, then restore`,
        { cause: error },
      );
    return 'unreadable';
  }
  try {
    // A store restored before may have given positions past its last event (its sequence was set
    // past them): its sequence counts too, or a second restore would give them again.
    const last = db
      .prepare(
        "SELECT MAX(COALESCE((SELECT MAX(position) FROM events), 0), COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)) AS last",
      )
      .get()?.last;
    return {
      lastPosition: typeof last === 'number' && last > 0 ? BigInt(last) : undefined,
      lastEvents: lastEventsOf(db, streams),
    };
  } catch {
    return 'unreadable';
  } finally {
    db.exec('ROLLBACK');
    db.close();
  }
}

function lastEventsOf(db: DatabaseSync, streams: readonly string[]): Map<string, LastEvent> {
  const lastOf = db.prepare(
    'SELECT revision, type, data FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1',
  );
  const events = new Map<string, LastEvent>();
  for (const stream of streams) {
    const row = lastOf.get(stream);
    if (row === undefined) continue;
    const data = JSON.parse(String(row.data)) as Record<string, unknown>;
    events.set(stream, { revision: Number(row.revision), type: String(row.type), data });
  }
  return events;
}

/** An event a restore appends to the restored store (see prepareRestoredStore's `append`). */
export type RestoreEvent = {
  readonly stream: string;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, unknown>>;
};

/**
 * Makes `copy` (a copy of a backup) ready to take the store's place: a store, whole (SQLite's
 * quick_check), whose next event takes the position after `after` when given and past its own
 * last event. `asked` (the position the operator gave) below its last is refused; an `after`
 * below it otherwise is passed over. Throws RestoreRefusedError for a copy that is no store or is
 * damaged. Returns what it holds, the position new events follow, and the events `append` gave.
 */
export function prepareRestoredStore(
  copy: string,
  after: bigint | undefined,
  asked: bigint | undefined,
  append: (lastEvents: ReadonlyMap<string, LastEvent>) => readonly RestoreEvent[] = () => [],
  streams: readonly string[] = [],
): SqliteBackup & { readonly nextAfter: bigint; readonly appended: readonly RestoreEvent[] } {
  let db: DatabaseSync;
  try {
    db = openSqliteDatabase(copy, { mustExist: true });
  } catch (error) {
    // The copy's name means nothing to the operator (it is deleted): what it is, said of the backup.
    const what =
      error instanceof NotAnEventStoreError
        ? `a SQLite database without ${error.tables.length === 0 ? 'tables' : 'an events table'}`
        : (error as Error).message;
    throw new RestoreRefusedError(`it is not a store: ${what}`, { cause: error });
  }
  try {
    const problems = db
      .prepare('PRAGMA quick_check(3)')
      .all()
      .map((row) => String(Object.values(row)[0]));
    if (problems[0] !== 'ok') {
      // Its findings span lines: said on one, at most 300 characters of them.
      const found = problems.join('; ').replace(/\s+/g, ' ');
      throw new RestoreRefusedError(
        `it is damaged (SQLite's quick_check: ${found.length > 300 ? `${found.slice(0, 300)}…` : found})`,
      );
    }
    const count = db.prepare('SELECT COUNT(*) AS events, MAX(position) AS last FROM events').get()!;
    const last = count.last === null ? undefined : BigInt(count.last as number);
    if (asked !== undefined && last !== undefined && asked < last)
      throw new RestoreRefusedError(
        `it holds events up to position ${last}: new events cannot start after ${asked}, which is below it`,
      );
    const skip = after !== undefined && (last === undefined || after > last);
    if (skip) {
      // AUTOINCREMENT gives the next row max(seq, max(position)) + 1.
      const updated = db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'events'").run(after);
      if (updated.changes === 0)
        db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?)").run(after);
    }
    // Appended after the skip, so that they take positions past it too; in one transaction.
    const lastEvents = lastEventsOf(db, streams);
    const appended = append(lastEvents);
    if (appended.length > 0) {
      const lastOf = new Map([...lastEvents].map(([stream, event]) => [stream, event.revision]));
      const insert = db.prepare(
        'INSERT INTO events (stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?)',
      );
      db.exec('BEGIN IMMEDIATE');
      for (const event of appended) {
        const revision = (lastOf.get(event.stream) ?? -1) + 1;
        lastOf.set(event.stream, revision);
        insert.run(
          event.stream,
          revision,
          event.type,
          JSON.stringify(event.data),
          JSON.stringify(event.metadata),
        );
      }
      db.exec('COMMIT');
    }
    return {
      events: count.events as number,
      lastPosition: last,
      nextAfter: skip ? after : (last ?? 0n),
      appended,
    };
  } finally {
    db.close();
  }
}
