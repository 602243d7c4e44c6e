/** Everything of metrics, behind one dynamic import (prom-client loads only when METRICS_PORT is set). */
export { graphqlMetrics } from './graphql-metrics.ts';
export { httpMetrics } from './http-metrics.ts';
export { answerPrimaryWith, startClusterMetricsListener } from './cluster.ts';
export { startMetricsListener } from './listener.ts';
export { createMetrics, forwarderMetrics, type Metrics, readModelGauges } from './registry.ts';
export { appendMetrics } from './store-metrics.ts';
