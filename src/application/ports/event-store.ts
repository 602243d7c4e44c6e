/**
 * The event store port, defined by the application. Adapters: `src/eventstore/sqlite.ts` (embedded
 * default) and `src/eventstore/kurrentdb.ts` (production).
 * `test/eventstore/conformance.ts` states this contract as tests; every adapter must pass it.
 *
 * Revisions count the events of one stream from 0. Positions order all events of the store; they
 * only grow, but need not be contiguous (KurrentDB's commit positions are not). Both are bigint end
 * to end; in JSON they travel as decimal strings.
 */

export type { EventMetadata } from '../../shared/event-metadata.ts';
import { AppError } from '../../shared/errors.ts';
import type { EventMetadata } from '../../shared/event-metadata.ts';

export type NewEvent = {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: EventMetadata;
};

export type RecordedEvent = NewEvent & {
  readonly streamName: string;
  readonly revision: bigint;
  /**
   * Exact from readAll, subscribeToAll and appends. From readStream, an adapter that cannot know
   * it exactly returns a lower bound: never wait on it for read-your-writes (wait on the head).
   */
  readonly position: bigint;
};

/**
 * `'any'`: no check. `'no_stream'`: the stream must not exist yet. `'stream_exists'`: it must.
 * A bigint: the revision of the stream's last event must be exactly this.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export type AppendResult = {
  /** Revision of the last event written; pass it as the next expected revision. */
  readonly nextExpectedRevision: bigint;
  /** Position of the last event written; wait for a projection to reach it for read-your-writes. */
  readonly position: bigint;
};

/** One stream's part of an atomic append to several streams. */
export type StreamAppend = {
  readonly streamName: string;
  readonly events: readonly NewEvent[];
  readonly expectedRevision: ExpectedRevision;
};

export type MultiAppendResult = {
  /** Position of the last event written, over all streams. */
  readonly position: bigint;
  /** Each stream's revision after the append, in the order given. */
  readonly nextExpectedRevisions: readonly bigint[];
};

export type ReadAllOptions = {
  /** Read events whose position is greater than this; from the start when absent. */
  readonly after?: bigint;
  /**
   * Read events whose position is this or greater, when `after` is absent: the event at a position
   * a store gave. Not `after: position - 1n`, which on KurrentDB is a (commit, prepare) pair no event has.
   */
  readonly from?: bigint;
  readonly maxCount?: number;
};

export type SubscribeToAllOptions = {
  /** Deliver events whose position is greater than this; from the start when absent. */
  readonly after?: bigint;
  /**
   * Called between deliveries with a position up to which the feed has delivered every event it
   * will ever deliver: a consumer may save it as its checkpoint and resume from it (`after`).
   * Never ahead of an event still to come. KurrentDB reports the checkpoints of its server-side
   * filter, which move past long runs of events the feed leaves out (system events), so a consumer
   * catching up over them need not start again from its last event; SQLite reports the last
   * position of each batch, once the consumer has taken it.
   */
  readonly onCheckpoint?: (position: bigint) => void;
  /**
   * A hint: the subscriber reads the metadata and stream names of few of the events (a read model
   * replaying millions), so a store may fetch an event's metadata and stream name when they are
   * first read rather than with every event. The events are the same either way.
   */
  readonly lean?: boolean;
};

export type ReadStreamOptions = {
  /** First revision to read, inclusive; 0 when absent. */
  readonly fromRevision?: bigint;
  readonly maxCount?: number;
};

/**
 * A live feed of every event after a position, in position order. Closing it ends the iteration.
 * Iterate it event by event, or through `batches()`: one or the other, not both.
 */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  /**
   * The same feed, every event available at each step (at least one per batch). Read models
   * replaying millions of events use it: one await per batch instead of one per event.
   */
  batches(): AsyncIterable<readonly RecordedEvent[]>;
  close(): Promise<void>;
}

export interface EventStore {
  /**
   * Appends atomically, all events or none. Resolves only once the events are durable.
   * Rejects with `WrongExpectedRevisionError` when `expectedRevision` does not hold.
   */
  appendToStream(
    streamName: string,
    events: readonly NewEvent[],
    options?: { readonly expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult>;
  /**
   * Appends to several streams atomically: every event of every stream, or nothing. Every expected
   * revision is checked; one that does not hold rejects the whole append with
   * `WrongExpectedRevisionError` naming its stream. Resolves only once the events are durable.
   * Each stream is named once, with at least one event.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<MultiAppendResult>;
  /** The events of one stream in revision order; empty when the stream does not exist. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Every event in position order, from the start or after a position. */
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;
  /** Catch-up, then live: every event after `after` (from the start when absent). */
  subscribeToAll(options?: SubscribeToAllOptions): Subscription;
  /** Position of the last event in the store, or undefined for an empty store. */
  headPosition(): Promise<bigint | undefined>;
  /**
   * Resolves when the store can take a write now, without writing anything; rejects with
   * `StoreUnavailableError` when it cannot. Cheap: readiness asks it while appends are refused.
   */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Why a store cannot take a write for now, each cured without a restart: space freed on the disk,
 * the other process's write lock released, the KurrentDB server reachable (or a leader elected).
 */
export type StoreUnavailableReason = 'disk_full' | 'write_lock_held' | 'unreachable';

/** What a client may wait before retrying, by reason: a full disk waits for an operator. */
const RETRY_AFTER_SECONDS: Record<StoreUnavailableReason, number> = {
  disk_full: 10,
  write_lock_held: 1,
  unreachable: 2,
};

/** The reason in words for a public probe: no file name, no address. */
const SUMMARIES: Record<StoreUnavailableReason, string> = {
  disk_full: 'its disk is full',
  write_lock_held: 'another process holds its write lock',
  unreachable: 'it cannot be reached or did not answer in time',
};

/**
 * An append (or a read) the store refused for a reason that passes: a 503 with `Retry-After`, never
 * a 500, since the request is sound and a retry later succeeds. Adapters throw it in place of their
 * own errors (SQLITE_FULL, SQLITE_BUSY, the KurrentDB client's UnavailableError…); a store that is
 * damaged is not unavailable but broken, and fails as before. For the embedded store nothing of
 * the append was written; for KurrentDB, an append that timed out may have been: a create retried
 * with the same Idempotency-Key is made once either way.
 */
export class StoreUnavailableError extends AppError {
  readonly reason: StoreUnavailableReason;
  /** For operators: what failed, where (the store's folder), in the store's own words. */
  readonly detail: string;

  constructor(reason: StoreUnavailableReason, detail: string, options: { readonly cause?: unknown } = {}) {
    const retryAfter = RETRY_AFTER_SECONDS[reason];
    super(
      'store_unavailable',
      503,
      `The event store cannot take this request right now; retry it after ${retryAfter} s (Retry-After).`,
      { 'Retry-After': String(retryAfter) },
    );
    this.reason = reason;
    this.detail = detail;
    if (options.cause !== undefined) this.cause = options.cause;
  }

  /** The reason in words a public readiness probe may show. */
  get summary(): string {
    return SUMMARIES[this.reason];
  }
}

/**
 * The store can no longer be written by this process, and a retry will not change that (the
 * embedded store's writer thread died): every append fails until the process restarts. A 500 to
 * the request, and the server stops (see src/observability/store-writes.ts) so that its supervisor
 * starts it again.
 */
export class StoreBrokenError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreBrokenError';
  }
}

export class WrongExpectedRevisionError extends Error {
  readonly streamName: string;
  readonly expected: ExpectedRevision;
  /** The stream's actual last revision, or `'no_stream'`. */
  readonly actual: bigint | 'no_stream';

  constructor(streamName: string, expected: ExpectedRevision, actual: bigint | 'no_stream') {
    super(`Stream ${streamName}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
    this.streamName = streamName;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * An event of the embedded store that cannot be read: its data or metadata is not a JSON object.
 * The service writes no such event, so the store was changed or damaged outside it; reading goes
 * no further than it, because a read model or audit that left it out would be wrong. (KurrentDB's
 * adapter skips such events instead: other applications may write to that store.)
 */
export class UnreadableEventError extends Error {
  readonly position: bigint;

  constructor(position: bigint, where: string, why: string) {
    super(
      `The event at position ${position}${where} cannot be read: ${why}. The service writes no such ` +
        'event: the store was changed outside it. Restore the store from a backup.',
    );
    this.name = 'UnreadableEventError';
    this.position = position;
  }
}
