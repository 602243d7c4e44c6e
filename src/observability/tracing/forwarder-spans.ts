import { type Link, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import type { RecordedEvent } from '../../application/ports/event-store.ts';
import { contextOf, endedAfter } from './trace-context.ts';

/**
 * A `send <topic>` span (a producer's, in OpenTelemetry's messaging conventions) around each batch
 * the Kafka forwarder publishes, linked to the trace of every request whose events it carries: an
 * operator sees when and how long each request's events took to reach Kafka, and which batch
 * failed. Links, not a parent: a batch carries the events of many requests. The messages keep
 * their appends' `traceparent` (message.ts), so a consumer continues the request's own trace.
 */
export function publishSpans(tracer: Tracer, topic: string) {
  return async (batch: readonly RecordedEvent[], publish: () => Promise<void>): Promise<void> => {
    const span = tracer.startSpan(`send ${topic}`, {
      kind: SpanKind.PRODUCER,
      links: requestLinks(batch),
      attributes: {
        'messaging.system': 'kafka',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'send',
        'messaging.destination.name': topic,
        'messaging.batch.message_count': batch.length,
        'petstore.position.first': batch[0]?.position.toString() ?? '',
        'petstore.position.last': batch.at(-1)?.position.toString() ?? '',
      },
    });
    return endedAfter(span, publish);
  };
}

/** One link per distinct trace context among the events (the SDK keeps the first 128). */
function requestLinks(batch: readonly RecordedEvent[]): Link[] {
  const seen = new Set<string>();
  const links: Link[] = [];
  for (const event of batch) {
    const traceparent = event.metadata.traceparent;
    if (typeof traceparent !== 'string' || seen.has(traceparent)) continue;
    seen.add(traceparent);
    const context = trace.getSpanContext(contextOf(traceparent));
    if (context !== undefined) links.push({ context });
  }
  return links;
}
