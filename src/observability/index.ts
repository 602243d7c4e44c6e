import type { FastifyPluginAsync } from 'fastify';
import type { Plugin as GraphQLPlugin } from 'graphql-yoga';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { EventStore, RecordedEvent } from '../application/ports/event-store.ts';
import type { Config } from '../config.ts';
import { type Clock, systemClock } from '../shared/context.ts';
import { type AppendObserver, chainObservers, observeAppends } from './observed-store.ts';

/** A read model as observability sees it (ReadModel in src/read-models is one). */
export type ObservedReadModel = {
  readonly projection: { readonly name: string };
  readonly checkpoint: bigint | undefined;
  onApplied(listener: (event: RecordedEvent) => void): () => void;
};

export type ForwarderObserver = {
  onCheckpoint?(position: bigint): void;
  onResume?(checkpoint: bigint | undefined): void;
  onError?(error: unknown): void;
  observePublish?(batch: readonly RecordedEvent[], publish: () => Promise<void>): Promise<void>;
};

/**
 * Metrics and tracing, as the configuration asks, attached to the service from the outside:
 * decorators of the store and the application, Fastify and GraphQL plugins, hooks. Each part is
 * imported only when it is on, so that a service with neither loads neither prom-client nor the
 * OpenTelemetry SDK.
 */
export type Observability = {
  /** The store with the metrics' and tracing's observers, then `inner`, around every append. */
  wrapStore(store: EventStore, inner?: readonly AppendObserver[]): EventStore;
  wrapApplication<A extends object>(application: A): A;
  readonly onRateLimitDecision:
    ((decision: 'allowed' | 'limited' | 'banned', plan: string) => void) | undefined;
  /** An event stream opened (+1) or closed (-1) on this process. */
  readonly onStreamsOpen: ((change: 1 | -1) => void) | undefined;
  readonly httpObservers: readonly FastifyPluginAsync[];
  readonly graphqlObservers: readonly GraphQLPlugin[];
  /** Once the read models have caught up: their gauges and spans, and the metrics listener. */
  started(store: EventStore, readModels: readonly ObservedReadModel[]): Promise<void>;
  /** Metrics and spans of a Kafka forwarder publishing the store's events to `topic`. */
  forwarder(store: EventStore, topic: string): ForwarderObserver;
  /** Where Prometheus scrapes, once started; undefined without metrics. */
  readonly metricsUrl: string | undefined;
  close(): Promise<void>;
};

/** How long closing waits for the last spans to reach the collector before dropping them. */
export const TRACING_FLUSH_TIMEOUT_MS = 2000;

export type ObservabilityOptions = {
  readonly clock?: Clock;
  /**
   * Where closing warns of spans it could not export, and OpenTelemetry's own warnings and errors go
   * (a bad OTEL_* value it replaced by its default, an export that failed).
   */
  readonly logger?: Pick<Logger, 'warn' | 'error'>;
  /** Tracing on, into these processors (tests), whatever the configuration says. */
  readonly spanProcessors?: SpanProcessor[];
  /** A worker of `--workers`: its metrics go to the primary (metrics/cluster.ts), which serves them. */
  readonly clusterWorker?: { readonly index: number; serve(metrics: () => Promise<unknown[]>): void };
};

export async function loadObservability(
  config: Pick<Config, 'metrics' | 'tracing'>,
  options: ObservabilityOptions = {},
): Promise<Observability> {
  const clock = options.clock ?? systemClock;
  const metrics = config.metrics.port === undefined ? undefined : await import('./metrics/index.ts');
  const registry = metrics?.createMetrics();
  const tracingOn = config.tracing.otlpEndpoint !== undefined || options.spanProcessors !== undefined;
  const tracing = tracingOn
    ? await (await import('./tracing/index.ts')).startTracing(options.spanProcessors, options.logger)
    : undefined;
  let listener: { url: string; close(): Promise<void> } | undefined;
  let stopSpans: (() => void) | undefined;

  return {
    wrapStore(store, inner = []) {
      const observer = chainObservers([
        ...(tracing ? [tracing.appendObserver] : []),
        ...(metrics && registry ? [metrics.appendMetrics(registry)] : []),
        ...inner,
      ]);
      return observer === undefined ? store : observeAppends(store, observer);
    },
    wrapApplication: (application) => (tracing ? tracing.wrapApplication(application) : application),
    onRateLimitDecision: registry
      ? (decision, plan) => registry.rateLimitDecisions.inc({ decision, plan })
      : undefined,
    onStreamsOpen: registry ? (change) => registry.openStreams.inc(change) : undefined,
    httpObservers: [
      ...(tracing ? [tracing.httpPlugin] : []),
      ...(metrics && registry ? [metrics.httpMetrics(registry)] : []),
    ],
    graphqlObservers: metrics && registry ? [metrics.graphqlMetrics(registry)] : [],
    async started(store, readModels) {
      stopSpans = tracing?.watchReadModels(readModels);
      if (!metrics || !registry || config.metrics.port === undefined) return;
      const readers = () => readModels.map((r) => ({ name: r.projection.name, checkpoint: r.checkpoint }));
      metrics.readModelGauges(registry, store, readers, clock);
      if (options.clusterWorker !== undefined)
        return metrics.answerPrimaryWith(registry.registry, options.clusterWorker);
      listener = await metrics.startMetricsListener(registry.registry, {
        port: config.metrics.port,
        host: config.metrics.host,
        ...(options.logger && { log: options.logger }),
      });
    },
    forwarder: (store, topic) => ({
      ...(metrics && registry ? metrics.forwarderMetrics(registry, store, clock) : {}),
      ...(tracing ? { observePublish: tracing.observePublish(topic) } : {}),
    }),
    get metricsUrl() {
      return listener?.url;
    },
    async close() {
      stopSpans?.();
      await listener?.close();
      const flushed = await tracing?.shutdown(TRACING_FLUSH_TIMEOUT_MS);
      if (flushed === undefined || flushed.exported) return;
      if ('error' in flushed)
        options.logger?.warn(
          { err: flushed.error },
          'tracing: the last spans were dropped: the exporter failed',
        );
      else
        options.logger?.warn(
          { timeoutMs: flushed.timedOutAfterMs },
          'tracing: the last spans were dropped: the exporter did not finish in time',
        );
    },
  };
}
