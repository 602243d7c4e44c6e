import type { ExpectedRevision } from '../application/ports/event-store.ts';

/**
 * The messages between the embedded store (main thread) and its writer (a worker thread that owns
 * the writing connection). Appends travel as one flat array of strings, numbers and bigints, and
 * results as one BigInt64Array whose buffer is transferred: structured clone copies a flat array
 * several times faster than nested arrays or objects, and a transferred buffer is not copied.
 *
 * Appends, each in turn:
 *   id, number of streams, then for each stream:
 *     stream name, expected revision, number of events, then for each event: type, data, metadata
 * (data and metadata as JSON, serialised on the main thread).
 *
 * Results of the appends written, each in turn:
 *   id, position of the last event, number of streams, each stream's revision after the append
 */

export type WireValue = string | number | bigint;

export type ToWriter =
  | { readonly kind: 'appends'; readonly appends: readonly WireValue[] }
  /** Take the write lock as an append would, measure the room left, let go: answer `probed`. */
  | { readonly kind: 'probe' }
  /** Commit what came before, close the connection, answer `closed`. */
  | { readonly kind: 'close' };

/** An append whose expected revision did not hold: the main thread makes it a WrongExpectedRevisionError. */
export type WireConflict = {
  readonly id: number;
  readonly streamName: string;
  readonly expected: ExpectedRevision;
  readonly actual: bigint | 'no_stream';
};

/** An error of SQLite itself, with the fields node:sqlite gives it (structured clone drops them). */
export type WireError = {
  readonly message: string;
  readonly code?: unknown;
  readonly errcode?: unknown;
  readonly errstr?: unknown;
};

export type FromWriter =
  /** One transaction committed and fsynced: the appends written, and those that conflicted. */
  | {
      readonly kind: 'committed';
      readonly written: BigInt64Array;
      readonly conflicts: readonly WireConflict[];
    }
  /** The transaction failed as a whole (disk full, I/O): none of these appends was written. */
  | { readonly kind: 'failed'; readonly ids: readonly number[]; readonly error: WireError }
  /**
   * A probe's answer, in the order probes were sent: the bytes the file may still grow by (pages
   * under SQLite's page limit, free pages included; the disk's own room is the main thread's to
   * measure), or the error that taking the write lock met.
   */
  | { readonly kind: 'probed'; readonly roomBytes: number }
  | { readonly kind: 'probed'; readonly error: WireError }
  | { readonly kind: 'closed' };
