import { diag, type DiagLogFunction, DiagLogLevel } from '@opentelemetry/api';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';

/**
 * What became of the spans still buffered when tracing stopped: exported, or dropped because the
 * exporter failed (a collector that is down or refuses them) or did not finish in time.
 */
export type TracingShutdown =
  | { readonly exported: true }
  | { readonly exported: false; readonly error: unknown }
  | { readonly exported: false; readonly timedOutAfterMs: number };

export type TracingSdk = {
  /** Flushes and stops; resolves within `timeoutMs` whatever the exporter does, and never rejects. */
  shutdown(timeoutMs: number): Promise<TracingShutdown>;
};

/**
 * OpenTelemetry's Node SDK, traces only, no automatic instrumentation (the spans are ours: see
 * spans.ts). Without `spanProcessors` it exports over OTLP as the standard OTEL_* variables say
 * (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _PROTOCOL, OTEL_TRACES_SAMPLER…); tests pass an in-memory
 * exporter. The service is named `petstore` unless OTEL_SERVICE_NAME says otherwise. Loaded only
 * when tracing is on: the SDK and its exporters take a while to import.
 */
export function startTracingSdk(
  options: { readonly spanProcessors?: SpanProcessor[]; readonly logger?: Pick<Logger, 'warn'> } = {},
): TracingSdk {
  if (options.logger !== undefined) diag.setLogger(diagLogger(options.logger), DIAG_OPTIONS);
  const sdk = new NodeSDK({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': 'petstore' })),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors === undefined ? {} : { spanProcessors: options.spanProcessors }),
  });
  sdk.start();
  return {
    async shutdown(timeoutMs) {
      try {
        return await boundedShutdown(sdk, timeoutMs);
      } finally {
        // An export still running past the bound must not log into a logger being closed.
        diag.disable();
      }
    },
  };
}

/**
 * OpenTelemetry tells of what it could not do only through its `diag` logger, which logs nothing
 * until one is set: a bad OTEL_* value it replaced by its default (`OTEL_EXPORTER_OTLP_PROTOCOL=bogus`),
 * an export that failed. Its warnings and errors go to the service's log as `warn` lines: tracing is
 * optional, and none of them stops the service.
 */
function diagLogger(logger: Pick<Logger, 'warn'>) {
  const warn: DiagLogFunction = (message, ...args) =>
    logger.warn(args.length === 0 ? {} : { args }, `opentelemetry: ${message}`);
  const quiet: DiagLogFunction = () => {};
  return { error: warn, warn, info: quiet, debug: quiet, verbose: quiet };
}

const DIAG_OPTIONS = { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true };

/**
 * The OTLP exporter retries a collector it cannot reach until its own timeout
 * (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s), then fails the shutdown: tracing is optional, and must neither
 * hold up nor fail the service's.
 */
async function boundedShutdown(sdk: NodeSDK, timeoutMs: number): Promise<TracingShutdown> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<TracingShutdown>((resolve) => {
    timer = setTimeout(() => resolve({ exported: false, timedOutAfterMs: timeoutMs }), timeoutMs);
    timer.unref();
  });
  const shutdown = sdk.shutdown().then(
    (): TracingShutdown => ({ exported: true }),
    (error: unknown): TracingShutdown => ({ exported: false, error }),
  );
  try {
    return await Promise.race([shutdown, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
