import { AggregatorRegistry, type Registry } from 'prom-client';
import { type MetricsListener, startMetricsListener } from './listener.ts';

/**
 * Metrics under `petstore start --workers N`. The workers cannot each listen on METRICS_PORT (a
 * scrape would reach one of them in turn), so the primary listens and, on every scrape, asks each
 * worker for its registry over the cluster's channel and serves their aggregate (prom-client's
 * AggregatorRegistry): counters and histograms summed, gauges as each metric's `aggregator` says.
 */
export function startClusterMetricsListener(options: {
  readonly port: number;
  readonly host: string;
}): Promise<MetricsListener> {
  const aggregate = new AggregatorRegistry();
  return startMetricsListener(
    { contentType: aggregate.contentType, metrics: () => aggregate.clusterMetrics() },
    options,
  );
}

/** In a worker: answer the primary's requests with this registry (instead of prom-client's global one). */
export function answerPrimaryWith(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one is what makes prom-client listen for the primary's requests in a worker.
  new AggregatorRegistry();
}
