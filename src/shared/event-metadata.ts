import { randomUUID } from 'node:crypto';
import type { Clock, RequestContext } from './context.ts';

/** What every event carries besides its type and data: who, when, why. */
export type EventMetadata = {
  /** Unique per event; consumers deduplicate by it. */
  readonly eventId: string;
  /** ISO-8601 time at which the command that produced the event was decided. */
  readonly occurredAt: string;
  readonly correlationId: string;
  readonly schemaVersion: number;
  /** The API key that acted, once authentication exists; absent for CLI and system actions. */
  readonly apiKeyId?: string;
  readonly [key: string]: unknown;
};

export function newEventMetadata(clock: Clock, context: RequestContext, schemaVersion = 1): EventMetadata {
  return {
    eventId: randomUUID(),
    occurredAt: clock.now().toISOString(),
    correlationId: context.correlationId,
    schemaVersion,
    ...(context.apiKeyId === undefined ? {} : { apiKeyId: context.apiKeyId }),
  };
}
