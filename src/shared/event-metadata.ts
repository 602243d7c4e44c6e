import { randomUUID } from 'node:crypto';
import type { Clock, RequestContext } from './context.ts';

/**
 * What every event carries besides its type and data: who, when, why.
 *
 * Following a business action: `correlationId` is the same on every event of one action, whatever
 * caused what within it (the request id: the client's X-Request-Id, or one the server made; a CLI
 * run's own id). `causationId` names what directly caused this event: the request for events a
 * request appends, and, for an event appended in reaction to another, that event's `eventId` (with
 * the correlation id carried over). `traceparent` is the W3C trace context of the span that
 * appended the event, when tracing is on: a projection, the Kafka message and its consumer continue
 * that trace (its trace id is the second field, `00-<trace id>-<span id>-<flags>`).
 */
export type EventMetadata = {
  /** Unique per event; consumers deduplicate by it. */
  readonly eventId: string;
  /** ISO-8601 time at which the command that produced the event was decided. */
  readonly occurredAt: string;
  readonly correlationId: string;
  readonly causationId?: string;
  readonly schemaVersion: number;
  /** The API key that acted, once authentication exists; absent for CLI and system actions. */
  readonly apiKeyId?: string;
  /** Stamped by the tracing decorator of the store (src/observability/tracing), never by the domain. */
  readonly traceparent?: string;
  readonly [key: string]: unknown;
};

export function newEventMetadata(clock: Clock, context: RequestContext, schemaVersion = 1): EventMetadata {
  const metadata: { -readonly [K in keyof EventMetadata]: EventMetadata[K] } = {
    eventId: randomUUID(),
    occurredAt: clock.now().toISOString(),
    correlationId: context.correlationId,
    causationId: context.causationId ?? context.correlationId,
    schemaVersion,
  };
  // Assigned, not spread from a conditional object: one allocation fewer on every write.
  if (context.apiKeyId !== undefined) metadata.apiKeyId = context.apiKeyId;
  return metadata;
}
