import { collectDefaultMetrics, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { MetricsListener } from '../../src/observability/metrics/listener.ts';
import { startClusterMetricsListener } from '../../src/observability/metrics/index.ts';
import { scrape, series } from '../support/prometheus.ts';

/** The primary's scrape under `--workers`: each worker's series and its own, labelled `worker`. */

let listener: MetricsListener | undefined;
afterEach(async () => listener?.close());

/** A worker's registry as answerPrimaryWith hands it to the primary. */
async function workerMetrics(index: number): Promise<unknown[]> {
  const registry = new Registry();
  registry.setDefaultLabels({ worker: String(index) });
  collectDefaultMetrics({ register: registry });
  return registry.getMetricsAsJSON();
}

describe('the primary’s metrics listener', () => {
  it('serves each process’s process_start_time_seconds, which prom-client leaves out of an aggregate', async () => {
    const workers = [await workerMetrics(0), await workerMetrics(1)];
    listener = await startClusterMetricsListener({
      port: 0,
      host: '127.0.0.1',
      collect: async () => workers,
    });
    const samples = await scrape(listener.url);
    const started = ['0', '1', 'primary'].map((worker) =>
      samples.get(series('process_start_time_seconds', { worker })),
    );
    const now = Date.now() / 1000;
    for (const seconds of started) expect(seconds).toBeGreaterThan(now - 3600);
  });
});
