import { trace } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import { traceApplication } from './application-spans.ts';
import { publishSpans } from './forwarder-spans.ts';
import { httpSpans } from './http-spans.ts';
import { projectionSpans } from './projection-spans.ts';
import { startTracingSdk } from './sdk.ts';
import { appendSpans } from './store-spans.ts';

/**
 * Tracing, behind one dynamic import: HTTP → guard → application → append → projection, and the
 * forwarder's sends to Kafka, every span
 * ours (no monkey-patching instrumentation). Starts the SDK, which exports as the OTEL_* variables
 * say, or into `spanProcessors` when given.
 */
export function startTracing(spanProcessors?: SpanProcessor[], logger?: Pick<Logger, 'warn'>) {
  const sdk = startTracingSdk({
    ...(spanProcessors !== undefined && { spanProcessors }),
    ...(logger !== undefined && { logger }),
  });
  const tracer = trace.getTracer('petstore');
  return {
    httpPlugin: httpSpans(tracer),
    appendObserver: appendSpans(tracer),
    wrapApplication: <A extends object>(application: A) => traceApplication(application, tracer),
    watchReadModels: (readModels: Parameters<typeof projectionSpans>[0]) =>
      projectionSpans(readModels, tracer),
    observePublish: (topic: string) => publishSpans(tracer, topic),
    shutdown: (timeoutMs: number) => sdk.shutdown(timeoutMs),
  };
}
