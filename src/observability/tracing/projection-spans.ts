import type { Tracer } from '@opentelemetry/api';
import type { RecordedEvent } from '../../application/ports/event-store.ts';
import { contextOf } from './trace-context.ts';

type Observable = {
  readonly projection: { readonly name: string };
  onApplied(listener: (event: RecordedEvent) => void): () => void;
};

/**
 * A `projection <name>` span when a read model has applied an event that carries a trace context:
 * the last link of the chain from the request, in whichever process applies it. Register it once the
 * read models have caught up, so that a restart's replay of history makes no spans.
 */
export function projectionSpans(readModels: readonly Observable[], tracer: Tracer): () => void {
  const stops = readModels.map((readModel) =>
    readModel.onApplied((event) => {
      if (typeof event.metadata.traceparent !== 'string') return;
      tracer
        .startSpan(
          `projection ${readModel.projection.name}`,
          {
            attributes: {
              'petstore.event_type': event.type,
              'petstore.stream': event.streamName,
              'petstore.position': event.position.toString(),
            },
          },
          contextOf(event.metadata.traceparent),
        )
        .end();
    }),
  );
  return () => stops.forEach((stop) => stop());
}
