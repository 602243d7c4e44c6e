import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

export type TracingSdk = { shutdown(): Promise<void> };

/**
 * OpenTelemetry's Node SDK, traces only, no automatic instrumentation (the spans are ours: see
 * spans.ts). Without `spanProcessors` it exports over OTLP as the standard OTEL_* variables say
 * (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _PROTOCOL, OTEL_TRACES_SAMPLER…); tests pass an in-memory
 * exporter. The service is named `petstore` unless OTEL_SERVICE_NAME says otherwise. Loaded only
 * when tracing is on: the SDK and its exporters take a while to import.
 */
export function startTracingSdk(options: { readonly spanProcessors?: SpanProcessor[] } = {}): TracingSdk {
  const sdk = new NodeSDK({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': 'petstore' })),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors === undefined ? {} : { spanProcessors: options.spanProcessors }),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
