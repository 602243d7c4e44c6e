import {
  AggregatorRegistry,
  collectDefaultMetrics,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';
import { type MetricsListener, startMetricsListener } from './listener.ts';

/**
 * Metrics under `petstore start --workers N`. The workers cannot each listen on METRICS_PORT (a
 * scrape would reach one of them in turn), so the primary listens and, on every scrape, asks each
 * worker for its metrics over the cluster's channel and serves them together with its own process
 * metrics. Every series carries a `worker` label (0 … N−1, and `primary`): a worker that dies and
 * is replaced restarts its own counters, which Prometheus reads as the counter reset it is, where a
 * sum over the workers would go down. Sum over `worker` in queries for the whole service. A worker
 * that does not answer within a second (stalled) is left out of that scrape rather than failing it.
 */

const WORKER_TIMEOUT_MS = 1_000;

type Values = MetricObjectWithValues<MetricValue<string>>;

export async function startClusterMetricsListener(options: {
  readonly port: number;
  readonly host: string;
  /** Each worker's metrics in prom-client's JSON form (the workers that answered in time). */
  readonly collect: (timeoutMs: number) => Promise<unknown[][]>;
  readonly log?: { error(obj: object, msg: string): void };
}): Promise<MetricsListener> {
  const primary = new Registry();
  primary.setDefaultLabels({ worker: 'primary' });
  collectDefaultMetrics({ register: primary });
  return startMetricsListener(
    {
      contentType: primary.contentType,
      async metrics() {
        const workers = (await options.collect(WORKER_TIMEOUT_MS)) as Values[][];
        const all = [...workers, (await primary.getMetricsAsJSON()) as Values[]];
        return AggregatorRegistry.aggregate(all.map((metrics) => metrics.map(kept))).metrics();
      },
    },
    options,
  );
}

/**
 * Every series carries its process's `worker` label, so the aggregate never merges two processes'
 * values: it only gathers each family's series under one HELP and TYPE. A metric that prom-client
 * marks `omit` (it cannot be summed over processes: process_start_time_seconds) would be left out
 * of the scrape altogether; kept, each process's own value shows, as without `--workers`.
 */
function kept(metric: Values): Values {
  return metric.aggregator === 'omit' ? { ...metric, aggregator: 'first' } : metric;
}

/** In a worker: its registry's series labelled with its index, as `serve` hands them to the primary. */
export function answerPrimaryWith(
  registry: Registry,
  worker: { readonly index: number; serve(metrics: () => Promise<unknown[]>): void },
): void {
  registry.setDefaultLabels({ worker: String(worker.index) });
  worker.serve(() => registry.getMetricsAsJSON());
}
