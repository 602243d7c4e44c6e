import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '../eventstore/port.ts';
import type { Clock, RequestContext } from './context.ts';

export function newEventMetadata(clock: Clock, context: RequestContext, schemaVersion = 1): EventMetadata {
  return {
    eventId: randomUUID(),
    occurredAt: clock.now().toISOString(),
    correlationId: context.correlationId,
    schemaVersion,
    ...(context.apiKeyId === undefined ? {} : { apiKeyId: context.apiKeyId }),
  };
}
