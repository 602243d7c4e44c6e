import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  MultiAppendResult,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  SubscribeToAllOptions,
  Subscription,
} from '../application/ports/event-store.ts';
import { badAppendShape } from './append-shape.ts';
import { liveSubscription } from './live-subscription.ts';
import { CommitWatch } from './sqlite-commit-watch.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import {
  type LeanRow,
  type Row,
  type StreamAndMetadataAt,
  toLeanRecordedEvent,
  toRecordedEvent,
} from './sqlite-recorded-event.ts';
import { SqliteWriter } from './sqlite-writer.ts';

/**
 * The embedded event store: one SQLite file in WAL mode with `synchronous=FULL`, so a commit
 * returns only after the WAL is fsynced. Writes go through a worker thread that owns the writing
 * connection (`sqlite-writer.ts`) and commits every append waiting at once (group commit: one
 * fsync acknowledges all of them); reads and subscriptions use this thread's own connection, which
 * WAL lets read while the writer commits. So no insert or fsync ever holds the event loop that
 * serves reads. A failing expected-revision check rejects only its own append.
 *
 * Several processes may share the file: SQLite serialises their transactions. This process's
 * commits wake its subscribers as the writer reports them; another process's commit wakes them
 * through a watch on the WAL file, with a poll as the fallback where the file cannot be watched.
 */

export type SqliteEventStoreOptions = {
  readonly file: string;
  /** The file must already be a store: one without the events table is refused, never made one. */
  readonly mustExist?: boolean;
  /** How often subscriptions look for events written by other processes. */
  readonly pollIntervalMs?: number;
  /**
   * Events read per query when reading or catching up. Small enough that a batch dies young: with
   * 10,000, replaying a million events took a fifth more CPU, most of it the GC copying batches
   * still being folded.
   */
  readonly readBatchSize?: number;
  /** Tests only: see PETSTORE_FAILPOINT in src/config.ts. */
  readonly failpoint?: 'kill-between-streams' | 'store-cannot-grow' | 'writer-exits';
};

export function openSqliteEventStore(options: SqliteEventStoreOptions): EventStore {
  return new SqliteEventStore(openSqliteDatabase(options.file, { mustExist: options.mustExist }), options);
}

class SqliteEventStore implements EventStore {
  readonly #db: DatabaseSync;
  readonly #pollIntervalMs: number;
  readonly #batchSize: number;
  readonly #readAll: StatementSync;
  readonly #readAllLean: StatementSync;
  readonly #streamAndMetadataAt: StreamAndMetadataAt;
  readonly #readStream: StatementSync;
  readonly #head: StatementSync;
  readonly #listeners = new Set<() => void>();
  readonly #commits: CommitWatch;
  readonly #writer: SqliteWriter;
  #closing: Promise<void> | undefined;
  #closed = false;

  constructor(db: DatabaseSync, options: SqliteEventStoreOptions) {
    this.#db = db;
    this.#pollIntervalMs = options.pollIntervalMs ?? 100;
    this.#batchSize = options.readBatchSize ?? 2_000;
    this.#readAll = db.prepare(
      'SELECT position, stream, revision, type, data, metadata FROM events WHERE position > ? ORDER BY position LIMIT ?',
    );
    this.#readAll.setReturnArrays(true);
    this.#readAllLean = db.prepare(
      'SELECT position, revision, type, data FROM events WHERE position > ? ORDER BY position LIMIT ?',
    );
    this.#readAllLean.setReturnArrays(true);
    const streamAndMetadataAt = db.prepare('SELECT stream, metadata FROM events WHERE position = ?');
    streamAndMetadataAt.setReturnArrays(true);
    this.#streamAndMetadataAt = (position) => {
      if (this.#closed) throw new Error('The event store is closed.');
      return streamAndMetadataAt.get(position) as unknown as [string, string];
    };
    this.#readStream = db.prepare(
      'SELECT position, stream, revision, type, data, metadata FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
    );
    this.#readStream.setReturnArrays(true);
    this.#head = db.prepare('SELECT MAX(position) FROM events');
    this.#head.setReturnArrays(true);
    this.#commits = new CommitWatch(db, options.file, () => this.#wakeListeners());
    this.#writer = new SqliteWriter({
      file: options.file,
      failpoint: options.failpoint,
      onCommit: () => {
        this.#commits.ownCommit();
        this.#wakeListeners();
      },
    });
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
    if (this.#closing !== undefined) return Promise.reject(new Error('The event store is closed.'));
    const bad = badAppendShape(appends);
    if (bad !== undefined) return Promise.reject(bad);
    return this.#writer.append(appends);
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = Number(options.fromRevision ?? 0n);
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const rows = this.#readStream.all(streamName, from, max) as unknown as Row[];
    return rows.map(toRecordedEvent);
  }

  async *readAll(options: ReadAllOptions = {}): AsyncGenerator<RecordedEvent> {
    // Positions here are consecutive integers: the event at `from` is the first after `from - 1`.
    let after = options.after ?? (options.from === undefined ? 0n : options.from - 1n);
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
    return upToUnreadable(rows, toRecordedEvent);
  }

  #readLeanBatch(after: bigint, limit: number): RecordedEvent[] {
    if (this.#closed) return [];
    const rows = this.#readAllLean.all(Number(after), limit) as unknown as LeanRow[];
    return upToUnreadable(rows, (row) => toLeanRecordedEvent(row, this.#streamAndMetadataAt));
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): Subscription {
    return liveSubscription({
      after: options.after ?? 0n,
      readBatch: options.lean
        ? (after) => this.#readLeanBatch(after, this.#batchSize)
        : (after) => this.#readBatch(after, this.#batchSize),
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

  checkWritable(): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(new Error('The event store is closed.'));
    return this.#writer.probe();
  }

  #wakeListeners(): void {
    for (const notify of this.#listeners) notify();
  }

  /** Appends already made commit first; subscriptions then end. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#commits.close();
      await this.#writer.close();
      this.#closed = true;
      this.#wakeListeners();
      this.#db.close();
    })();
    return this.#closing;
  }
}

/**
 * A batch's events up to the first that cannot be read (UnreadableEventError): the events before it
 * are handed over, and it throws as the first of the next batch.
 */
function upToUnreadable<R>(rows: readonly R[], toEvent: (row: R) => RecordedEvent): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  try {
    for (const row of rows) events.push(toEvent(row));
  } catch (error) {
    if (events.length === 0) throw error;
  }
  return events;
}
