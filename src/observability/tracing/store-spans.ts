import { context, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import type { AppendObserver } from '../observed-store.ts';
import { endedAfter, traceparentOf } from './trace-context.ts';

/**
 * An `eventstore.append` span around every append, child of the active span (the command's), and
 * each event's metadata stamped with it as `traceparent`: whoever reads the event later (this
 * process's projections, another process's, the Kafka consumer) continues the same trace.
 */
export function appendSpans(tracer: Tracer): AppendObserver {
  return async (events, append) => {
    const span = tracer.startSpan('eventstore.append', {
      kind: SpanKind.CLIENT,
      attributes: {
        'petstore.events': events.length,
        'petstore.event_types': [...new Set(events.map((event) => event.type))],
      },
    });
    const traceparent = traceparentOf(span.spanContext());
    const stamped = events.map((event) => ({ ...event, metadata: { ...event.metadata, traceparent } }));
    return endedAfter(span, () => context.with(trace.setSpan(context.active(), span), () => append(stamped)));
  };
}
