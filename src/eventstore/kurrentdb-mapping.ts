import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  jsonEvent,
  type AllStreamRecordedEvent,
  type AppendStreamState,
  type EventData,
  type RecordedEvent as KurrentRecordedEvent,
  type WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import {
  type EventMetadata,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from './port.ts';
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

/** `position` is required: the caller supplies it when the server did not (stream reads). */
export function toRecordedEvent(
  event: KurrentRecordedEvent | AllStreamRecordedEvent,
  position: bigint,
): RecordedEvent {
  if (!event.isJson)
    throw new Error(`Event ${event.id} in ${event.streamId} is not JSON; this store writes only JSON.`);
  return {
    streamName: event.streamId,
    revision: event.revision,
    position,
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata: event.metadata as EventMetadata,
  };
}

/** The packed log position, or `fallback` when the server did not send one (stream reads). */
export function positionOf(event: KurrentRecordedEvent, fallback: bigint): bigint {
  return isKnownPosition(event.position) ? packPosition(event.position) : fallback;
}

export function toWrongExpectedRevision(
  streamName: string,
  expected: ExpectedRevision,
  error: WrongExpectedVersionError,
): WrongExpectedRevisionError {
  const actual = error.actualState === NO_STREAM ? 'no_stream' : error.actualState;
  return new WrongExpectedRevisionError(streamName, expected, actual);
}
