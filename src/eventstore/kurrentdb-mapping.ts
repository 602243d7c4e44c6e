import {
  ANY,
  AppendConsistencyViolationError,
  NO_STREAM,
  STREAM_EXISTS,
  jsonEvent,
  type AllStreamRecordedEvent,
  type AppendStreamState,
  type EventData,
  type RecordedEvent as KurrentRecordedEvent,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import {
  type EventMetadata,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
  StoreUnavailableError,
  WrongExpectedRevisionError,
} from '../application/ports/event-store.ts';
import { isKnownPosition, packPosition } from './kurrentdb-position.ts';

/** Translations between the port's types and the KurrentDB client's. Pure, so unit-tested alone. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

/**
 * The event id becomes KurrentDB's event id when it is a UUID, which lets the server drop a
 * retried append it already wrote (its idempotency check works on event ids).
 */
export function toEventData(event: NewEvent): EventData {
  const id = UUID.test(event.metadata.eventId) ? event.metadata.eventId : undefined;
  return jsonEvent({
    ...(id === undefined ? {} : { id }),
    type: event.type,
    data: { ...event.data },
    metadata: { ...event.metadata },
  });
}

/**
 * KurrentDB's multi-stream append carries metadata as a flat map of strings (the client refuses
 * anything else), so every value is written as a string; `fromStringMetadata` reads it back.
 */
export function toMultiAppendEventData(event: NewEvent): EventData {
  const metadata = Object.fromEntries(
    Object.entries(event.metadata)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
  const id = UUID.test(event.metadata.eventId) ? event.metadata.eventId : undefined;
  return jsonEvent({
    ...(id === undefined ? {} : { id }),
    type: event.type,
    data: { ...event.data },
    metadata,
  });
}

/**
 * Keys KurrentDB adds to the metadata of an event written by a multi-stream append (its properties,
 * rendered as JSON for a read, gain the schema's name and format: EventRecord.cs in KurrentDB 25.1
 * and later). Ours never have them.
 */
const SERVER_PROPERTIES = ['$schema.name', '$schema.format', '$schema.id'];

/**
 * Metadata as it comes back: `schemaVersion` (and only it) is a number in our events, and the keys
 * the server adds are left out, so that it is the metadata the event was appended with.
 */
export function fromStringMetadata(metadata: Record<string, unknown>): EventMetadata {
  const added = SERVER_PROPERTIES.some((key) => key in metadata);
  const { schemaVersion } = metadata;
  const numbered = typeof schemaVersion === 'string' && /^\d+$/.test(schemaVersion);
  if (!added && !numbered) return metadata as EventMetadata;
  const result: Record<string, unknown> = { ...metadata };
  for (const key of SERVER_PROPERTIES) delete result[key];
  if (numbered) result.schemaVersion = Number(schemaVersion);
  return result as EventMetadata;
}

export type KurrentDbLog = {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
};

/**
 * The port's event, or undefined (logged as an error) for an event this store cannot have
 * written: not JSON, or JSON whose data or metadata is not an object (the client hands malformed
 * JSON over as a string). Skipping it keeps reads and subscriptions going; throwing would turn a
 * subscription into an endless resubscribe at that event.
 */
export function toRecordedEvent(
  event: KurrentRecordedEvent | AllStreamRecordedEvent,
  position: bigint,
  log: KurrentDbLog,
): RecordedEvent | undefined {
  const unreadable = whyUnreadable(event);
  if (unreadable !== undefined) {
    log.error(
      { eventId: event.id, streamName: event.streamId, type: event.type, position: String(position) },
      `skipping an event this store cannot read: ${unreadable}`,
    );
    return undefined;
  }
  return {
    streamName: event.streamId,
    revision: event.revision,
    position,
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata: fromStringMetadata(event.metadata as Record<string, unknown>),
  };
}

export function whyUnreadable(event: KurrentRecordedEvent | AllStreamRecordedEvent): string | undefined {
  if (!event.isJson) return 'its content type is not application/json';
  if (!isObject(event.data)) return 'its data is not a JSON object';
  if (!isObject(event.metadata)) return 'its metadata is not a JSON object';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/**
 * The position of an event read from a stream. Exact when the server sends the event's log
 * position (KurrentDB 22.6 and later, for every event not written in an explicit transaction,
 * so for every event this store writes). Otherwise a lower bound, never above the exact one: the
 * commit position with prepare 0 when the server sent the commit position, else 0n.
 */
export function positionOf(event: KurrentRecordedEvent, commitPosition: bigint | undefined): bigint {
  if (isKnownPosition(event.position)) return packPosition(event.position);
  return commitPosition === undefined ? 0n : packPosition({ commit: commitPosition, prepare: 0n });
}

export function toWrongExpectedRevision(
  streamName: string,
  expected: ExpectedRevision,
  error: WrongExpectedVersionError,
): WrongExpectedRevisionError {
  const actual = error.actualState === NO_STREAM ? 'no_stream' : error.actualState;
  return new WrongExpectedRevisionError(streamName, expected, actual);
}

/**
 * The port's conflict for a multi-stream append, naming the stream whose expected revision failed.
 * The client reports it as `WrongExpectedVersionError` (a stream revision conflict) or, from
 * servers that check consistency per record, as `AppendConsistencyViolationError` with one
 * violation per failed stream.
 */
export function toMultiAppendConflict(appends: readonly StreamAppend[], error: unknown): unknown {
  const expectedOf = (streamName: string) =>
    appends.find((append) => append.streamName === streamName)?.expectedRevision ?? 'any';
  if (error instanceof WrongExpectedVersionError) {
    const streamName = error.streamName || appends[0]!.streamName;
    return toWrongExpectedRevision(streamName, expectedOf(streamName), error);
  }
  const violation = error instanceof AppendConsistencyViolationError ? error.violations[0] : undefined;
  if (violation === undefined) return error;
  return new WrongExpectedRevisionError(
    violation.streamName,
    expectedOf(violation.streamName),
    violation.actualState,
  );
}

/**
 * The client's errors that pass without a restart (its `type`), and what each says of the server:
 * nothing answered, no answer in time, or no leader to take the request (an election under way).
 */
const PASSING: Readonly<Record<string, string>> = {
  unavailable: 'cannot be reached',
  'deadline-exceeded': 'did not answer before the deadline',
  timeout: 'did not answer in time',
  'not-leader': 'has no leader to take the request',
};

/**
 * The port's StoreUnavailableError for a client error that passes (UnavailableError,
 * DeadlineExceededError, TimeoutError, NotLeaderError); any other error as it is. `server` names the
 * server without credentials.
 */
export function toStoreUnavailable(error: unknown, server: string): unknown {
  const type = (error as { type?: unknown } | undefined)?.type;
  const what = typeof type === 'string' && Object.hasOwn(PASSING, type) ? PASSING[type] : undefined;
  if (what === undefined) return error;
  const said = error instanceof Error && error.message !== '' ? ` (${error.message})` : '';
  return new StoreUnavailableError('unreachable', `${server} ${what}${said}`, { cause: error });
}
