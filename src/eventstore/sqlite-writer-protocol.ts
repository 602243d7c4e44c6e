import type { ExpectedRevision } from '../application/ports/event-store.ts';

/**
 * The messages between the embedded store (main thread) and its writer (a worker thread that owns
 * the writing connection). Plain data, as structured clone carries it: bigints, strings, arrays.
 */

/** An event serialised on the main thread: type, data JSON, metadata JSON. */
export type WireEvent = readonly [type: string, data: string, metadata: string];

/** One stream's part of an append. */
export type WireStream = readonly [
  streamName: string,
  expectedRevision: ExpectedRevision,
  events: readonly WireEvent[],
];

/** One append, to one stream or several: all of it is committed, or none. */
export type WireAppend = readonly [id: number, streams: readonly WireStream[]];

export type ToWriter =
  | { readonly kind: 'appends'; readonly appends: readonly WireAppend[] }
  /** Commit what came before, close the connection, answer `closed`. */
  | { readonly kind: 'close' };

/** A revision that did not hold, for the main thread to turn into WrongExpectedRevisionError. */
export type WireConflict = {
  readonly streamName: string;
  readonly expected: ExpectedRevision;
  readonly actual: bigint | 'no_stream';
};

export type WireOutcome =
  | { readonly id: number; readonly revisions: readonly bigint[]; readonly position: bigint }
  | { readonly id: number; readonly conflict: WireConflict };

/** An error of SQLite itself, with the fields node:sqlite gives it (structured clone drops them). */
export type WireError = {
  readonly message: string;
  readonly code?: unknown;
  readonly errcode?: unknown;
  readonly errstr?: unknown;
};

export type FromWriter =
  /** One transaction committed and fsynced: each append's outcome, in the order received. */
  | { readonly kind: 'committed'; readonly outcomes: readonly WireOutcome[] }
  /** The transaction failed as a whole (disk full, I/O): none of these appends was written. */
  | { readonly kind: 'failed'; readonly ids: readonly number[]; readonly error: WireError }
  | { readonly kind: 'closed' };
