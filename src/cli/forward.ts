import { pino } from 'pino';
import { endLogs } from './exit-after-logs.ts';
import { loadConfig } from '../config.ts';
import { openEventStore } from '../eventstore/index.ts';
import { checkForwarderConfig, startConfiguredForwarder } from '../forwarding/from-config.ts';
import { PublisherFencedError } from '../forwarding/publisher.ts';
import { loadObservability } from '../observability/index.ts';
import { prepareStore } from './store.ts';
import { UsageError } from './usage-error.ts';

/**
 * `petstore forward`: publishes the store's events to Kafka until SIGTERM or SIGINT. Starting a
 * second forwarder for the same topic fences this one, which then exits with status 0 (a
 * supervisor restarting on failure must not start a fencing ping-pong).
 */
export async function run(args: string[]): Promise<void> {
  if (args.length > 0) {
    throw new UsageError(
      `unexpected argument ${args[0]}: configure it with KAFKA_BROKERS, KAFKA_TOPIC, EVENT_STORE_URL`,
    );
  }
  const config = loadConfig(process.env);
  checkForwarderConfig(config);
  // Long-running like `start`, the forwarder may be the first to open a new embedded store.
  prepareStore(config, 'forward', 'may-create');
  const log = pino({ level: config.logLevel, name: 'forwarder' });
  const store = await openEventStore(config, log.child({ component: 'eventstore' }));
  // Metrics (METRICS_PORT): the forwarder's position, lag and failures, and Node's own. Tracing
  // (OTEL_EXPORTER_OTLP_ENDPOINT): a span for each batch sent to Kafka.
  const observability = await loadObservability(
    { metrics: config.metrics, tracing: config.tracing },
    { logger: log },
  );
  try {
    await observability.started(store, []);
    const forwarder = startConfiguredForwarder(
      config,
      store,
      log,
      observability.forwarder(store, config.kafka.topic),
    );
    // Signals may come twice (npm and a terminal both pass on Ctrl-C): stop() is idempotent.
    const stop = (): void => void forwarder.stop();
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    log.info(
      { topic: config.kafka.topic, brokers: config.kafka.brokers, metricsUrl: observability.metricsUrl },
      'forwarder started',
    );
    await forwarder.done;
    log.info({}, 'forwarder stopped');
  } catch (error) {
    if (!(error instanceof PublisherFencedError)) throw error;
    log.warn({ event: 'forwarder.fenced' }, error.message);
  } finally {
    await observability.close();
    await store.close();
    await endLogs(log);
  }
}
