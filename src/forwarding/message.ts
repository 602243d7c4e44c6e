import type { RecordedEvent } from '../application/ports/event-store.ts';
import { publicEventData } from '../shared/event-data.ts';
import type { OutgoingMessage } from './publisher.ts';

/**
 * The Kafka message of one event: the contract with downstream consumers (README, production
 * section). Key: the stream name, so the events of one stream go to one partition in order.
 * Value: the event as JSON, revision and position as decimal strings, with secret material left
 * out of its data (src/shared/event-data.ts). Headers repeat what a consumer needs to route or deduplicate without parsing
 * the value.
 */

export type EventMessageValue = {
  readonly eventId: string;
  readonly type: string;
  readonly streamName: string;
  /** Decimal string: the event's revision within its stream. */
  readonly revision: string;
  /** Decimal string: the event's position in the store; grows in store order. */
  readonly position: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, unknown>>;
};

export const HEADERS = {
  eventId: 'event-id',
  eventType: 'event-type',
  schemaVersion: 'schema-version',
  position: 'position',
  contentType: 'content-type',
  /** W3C trace context: a consumer's span continues the trace of the request that appended the event. */
  traceparent: 'traceparent',
  correlationId: 'correlation-id',
  causationId: 'causation-id',
} as const;

export function toKafkaMessage(event: RecordedEvent): OutgoingMessage {
  const value: EventMessageValue = {
    eventId: event.metadata.eventId,
    type: event.type,
    streamName: event.streamName,
    revision: event.revision.toString(),
    position: event.position.toString(),
    data: publicEventData(event.data),
    metadata: event.metadata,
  };
  return {
    key: event.streamName,
    value: JSON.stringify(value),
    headers: {
      [HEADERS.eventId]: event.metadata.eventId,
      [HEADERS.eventType]: event.type,
      [HEADERS.schemaVersion]: String(event.metadata.schemaVersion),
      [HEADERS.position]: event.position.toString(),
      [HEADERS.contentType]: 'application/json',
      ...traceHeaders(event.metadata),
    },
  };
}

/** The metadata that lets a consumer follow a business action, when the event has it. */
function traceHeaders(metadata: RecordedEvent['metadata']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (typeof metadata.traceparent === 'string') headers[HEADERS.traceparent] = metadata.traceparent;
  if (typeof metadata.correlationId === 'string') headers[HEADERS.correlationId] = metadata.correlationId;
  if (typeof metadata.causationId === 'string') headers[HEADERS.causationId] = metadata.causationId;
  return headers;
}
