import { type FSWatcher, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type MultiAppendResult,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeToAllOptions,
  type Subscription,
  WrongExpectedRevisionError,
} from '../application/ports/event-store.ts';
import { liveSubscription } from './live-subscription.ts';
import { type Row, toRecordedEvent } from './sqlite-recorded-event.ts';
import { watchWal } from './wal-watch.ts';

/**
 * The embedded event store: one SQLite file in WAL mode with `synchronous=FULL`, so a commit
 * returns only after the WAL is fsynced. Appends that arrive while a commit is being prepared are
 * grouped into one transaction (group commit): one fsync acknowledges all of them, which is what
 * makes durable writes fast. A failing expected-revision check rejects only its own append.
 *
 * Several processes may share the file: SQLite serialises their transactions. In-process appends
 * wake subscribers at once; another process's commit wakes them through a watch on the WAL file,
 * with a poll as the fallback where the file system cannot be watched.
 */

export type SqliteEventStoreOptions = {
  readonly file: string;
  /** How often subscriptions look for events written by other processes. */
  readonly pollIntervalMs?: number;
  /** Events read per query when reading or catching up. */
  readonly readBatchSize?: number;
  /** Tests only: see PETSTORE_FAILPOINT in src/config.ts. */
  readonly failpoint?: 'kill-between-streams';
};

type PendingStream = {
  readonly streamName: string;
  /** Type, data and metadata, serialised before the append joins a group. */
  readonly events: ReadonlyArray<readonly [type: string, data: string, metadata: string]>;
  readonly expectedRevision: ExpectedRevision;
};

/** One append, to one stream or several: all of it is written, or none. */
type PendingAppend = {
  readonly streams: readonly PendingStream[];
  readonly resolve: (result: MultiAppendResult) => void;
  readonly reject: (error: unknown) => void;
};

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

const BUSY_TIMEOUT_MS = 10_000;
const SQLITE_BUSY = 5;

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

export function openSqliteEventStore(options: SqliteEventStoreOptions): EventStore {
  mkdirSync(path.dirname(options.file), { recursive: true });
  const db = new DatabaseSync(options.file);
  // First, so that a process opening the file while another sets it up waits instead of failing.
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Where waiting could deadlock, SQLite answers SQLITE_BUSY at once instead of calling the busy
  // handler: switching a new file to WAL while another process writes to it is such a case.
  retryWhileBusy(() => db.exec('PRAGMA journal_mode = WAL'));
  db.exec('PRAGMA synchronous = FULL');
  retryWhileBusy(() => db.exec(SCHEMA));
  return new SqliteEventStore(
    db,
    options.file,
    options.pollIntervalMs ?? 100,
    options.readBatchSize ?? 10_000,
    options.failpoint,
  );
}

class SqliteEventStore implements EventStore {
  readonly #db: DatabaseSync;
  readonly #pollIntervalMs: number;
  readonly #batchSize: number;
  readonly #streamHead: StatementSync;
  readonly #insert: StatementSync;
  readonly #readAll: StatementSync;
  readonly #readStream: StatementSync;
  readonly #head: StatementSync;
  readonly #listeners = new Set<() => void>();
  #queue: PendingAppend[] = [];
  #flushScheduled = false;
  #checkingForOthers = false;
  #lastDataVersion: number;
  readonly #dataVersion: StatementSync;
  #closed = false;
  readonly #walWatcher: FSWatcher | undefined;

  readonly #failpoint: SqliteEventStoreOptions['failpoint'];

  constructor(
    db: DatabaseSync,
    file: string,
    pollIntervalMs: number,
    batchSize: number,
    failpoint: SqliteEventStoreOptions['failpoint'],
  ) {
    this.#db = db;
    this.#failpoint = failpoint;
    this.#dataVersion = db.prepare('PRAGMA data_version');
    this.#dataVersion.setReturnArrays(true);
    this.#lastDataVersion = (this.#dataVersion.get() as unknown as [number])[0];
    this.#walWatcher = watchWal(file, () => this.#onWalChange());
    this.#pollIntervalMs = pollIntervalMs;
    this.#batchSize = batchSize;
    this.#streamHead = db.prepare('SELECT MAX(revision) FROM events WHERE stream = ?');
    this.#streamHead.setReturnArrays(true);
    this.#insert = db.prepare(
      'INSERT INTO events (stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?) RETURNING position',
    );
    this.#insert.setReturnArrays(true);
    this.#readAll = db.prepare(
      'SELECT position, stream, revision, type, data, metadata FROM events WHERE position > ? ORDER BY position LIMIT ?',
    );
    this.#readAll.setReturnArrays(true);
    this.#readStream = db.prepare(
      'SELECT position, stream, revision, type, data, metadata FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
    );
    this.#readStream.setReturnArrays(true);
    this.#head = db.prepare('SELECT MAX(position) FROM events');
    this.#head.setReturnArrays(true);
  }

  async appendToStream(
    streamName: string,
    events: readonly NewEvent[],
    options: { readonly expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    const result = await this.appendToStreams([
      { streamName, events, expectedRevision: options.expectedRevision ?? 'any' },
    ]);
    return { nextExpectedRevision: result.nextExpectedRevisions[0]!, position: result.position };
  }

  appendToStreams(appends: readonly StreamAppend[]): Promise<MultiAppendResult> {
    if (this.#closed) return Promise.reject(new Error('The event store is closed.'));
    if (appends.length === 0 || appends.some((append) => append.events.length === 0)) {
      return Promise.reject(new Error('An append needs at least one event for each stream.'));
    }
    // Serialised here, so that an event that cannot be (a BigInt, a cycle) fails its own append
    // and never the group it would have joined.
    let streams: PendingStream[];
    try {
      streams = appends.map((append) => ({
        streamName: append.streamName,
        expectedRevision: append.expectedRevision,
        events: append.events.map(
          (event) => [event.type, JSON.stringify(event.data), JSON.stringify(event.metadata)] as const,
        ),
      }));
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ streams, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /**
   * Commits every queued append in one transaction: one fsync for the whole group. A failed
   * expected-revision check rejects only its own append; an error of SQLite itself (disk full, I/O)
   * rolls the whole group back and rejects every append in it, none of them acknowledged.
   */
  #flush(): void {
    this.#flushScheduled = false;
    if (this.#closed || this.#queue.length === 0) return; // close() flushed what was queued
    const batch = this.#queue;
    this.#queue = [];
    const outcomes: Array<{ ok: true; result: MultiAppendResult } | { ok: false; error: unknown }> = [];
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      for (const append of batch) outcomes.push(this.#tryAppend(append));
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      for (const append of batch) append.reject(error);
      return;
    }
    batch.forEach((append, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) append.resolve(outcome.result);
      else append.reject(outcome.error);
    });
    for (const notify of this.#listeners) notify();
  }

  /**
   * Checks every stream's expected revision before writing any event, so that a failed check
   * leaves nothing of its append in the group's transaction.
   */
  #tryAppend(append: PendingAppend): { ok: true; result: MultiAppendResult } | { ok: false; error: unknown } {
    const currents = append.streams.map((stream) => this.#currentRevision(stream.streamName));
    for (const [i, stream] of append.streams.entries()) {
      const conflict = checkExpectedRevision(stream.streamName, stream.expectedRevision, currents[i]!);
      if (conflict) return { ok: false, error: conflict };
    }
    let position = 0;
    const nextExpectedRevisions = append.streams.map((stream, i) => {
      const current = currents[i]!;
      let revision = current === 'no_stream' ? -1 : Number(current);
      for (const [type, data, metadata] of stream.events) {
        revision += 1;
        const [inserted] = this.#insert.get(stream.streamName, revision, type, data, metadata) as unknown as [
          number,
        ];
        position = inserted;
      }
      if (this.#failpoint === 'kill-between-streams' && append.streams.length > 1) {
        process.kill(process.pid, 'SIGKILL'); // a crash between the streams of one atomic append
      }
      return BigInt(revision);
    });
    return { ok: true, result: { nextExpectedRevisions, position: BigInt(position) } };
  }

  #currentRevision(streamName: string): bigint | 'no_stream' {
    const [max] = this.#streamHead.get(streamName) as unknown as [number | null];
    return max === null ? 'no_stream' : BigInt(max);
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = Number(options.fromRevision ?? 0n);
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const rows = this.#readStream.all(streamName, from, max) as unknown as Row[];
    return rows.map(toRecordedEvent);
  }

  async *readAll(options: ReadAllOptions = {}): AsyncGenerator<RecordedEvent> {
    let after = options.after ?? 0n;
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    while (remaining > 0) {
      const batch = this.#readBatch(after, Math.min(this.#batchSize, remaining));
      if (batch.length === 0) return;
      for (const event of batch) yield event;
      remaining -= batch.length;
      after = batch[batch.length - 1]!.position;
    }
  }

  #readBatch(after: bigint, limit: number): RecordedEvent[] {
    if (this.#closed) return [];
    const rows = this.#readAll.all(Number(after), limit) as unknown as Row[];
    return rows.map(toRecordedEvent);
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): Subscription {
    return liveSubscription({
      after: options.after ?? 0n,
      readBatch: (after) => this.#readBatch(after, this.#batchSize),
      onAppend: (notify) => {
        this.#listeners.add(notify);
        return () => this.#listeners.delete(notify);
      },
      pollIntervalMs: this.#pollIntervalMs,
      onCheckpoint: options.onCheckpoint,
    });
  }

  async headPosition(): Promise<bigint | undefined> {
    const [max] = this.#head.get() as unknown as [number | null];
    return max === null ? undefined : BigInt(max);
  }

  /**
   * The WAL file changed: this process's commit, or another's. `PRAGMA data_version` changes only
   * when another connection committed, but the file event comes before that commit is visible, so
   * look a few times over the next ~250 ms (a slow fsync delays it); past that, the poll interval takes over.
   */
  #onWalChange(): void {
    if (this.#checkingForOthers || this.#closed) return;
    this.#checkingForOthers = true;
    setImmediate(() => this.#checkForOthersCommit(0));
  }

  #checkForOthersCommit(attempt: number): void {
    if (this.#closed) return;
    const [version] = this.#dataVersion.get() as unknown as [number];
    if (version !== this.#lastDataVersion) {
      this.#lastDataVersion = version;
      this.#checkingForOthers = false;
      for (const notify of this.#listeners) notify();
      return;
    }
    if (attempt === 8) {
      this.#checkingForOthers = false;
      return;
    }
    setTimeout(() => this.#checkForOthersCommit(attempt + 1), 2 ** attempt).unref();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#walWatcher?.close();
    // Let appends already queued commit before the file closes.
    if (this.#queue.length > 0) this.#flush();
    this.#closed = true;
    for (const notify of this.#listeners) notify();
    this.#db.close();
  }
}

export function checkExpectedRevision(
  streamName: string,
  expected: ExpectedRevision,
  current: bigint | 'no_stream',
): WrongExpectedRevisionError | undefined {
  const holds =
    expected === 'any' ||
    (expected === 'no_stream' && current === 'no_stream') ||
    (expected === 'stream_exists' && current !== 'no_stream') ||
    (typeof expected === 'bigint' && current === expected);
  return holds ? undefined : new WrongExpectedRevisionError(streamName, expected, current);
}
