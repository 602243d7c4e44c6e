import { randomUUID } from 'node:crypto';
import { type Config, ConfigError } from '../config.ts';
import type { EventStore } from '../application/ports/event-store.ts';
import { type Forwarder, type ForwarderLog, type ForwarderObserver, startForwarder } from './forwarder.ts';
import { createKafkaJsPublisher } from './kafkajs-publisher.ts';

/**
 * The forwarder as configured: used in-process by `petstore start` and alone by `petstore forward`.
 * Throws `ConfigError` (exit status 2 from the CLI) when KAFKA_BROKERS is missing; this is the one
 * place that checks it for both.
 */
export function startConfiguredForwarder(
  config: Pick<Config, 'kafka'>,
  store: EventStore,
  log: ForwarderLog,
  observer: ForwarderObserver = {},
): Forwarder {
  checkForwarderConfig(config);
  const { brokers, clientId, topic } = config.kafka;
  // One owner id for all the sessions of this forwarder: how it recognises its own checkpoint.
  const owner = randomUUID();
  log.info({ owner, topic }, 'forwarder owner id for this run');
  return startForwarder({
    ...observer,
    store,
    log,
    createPublisher: () => createKafkaJsPublisher({ brokers, clientId, topic, log, owner }),
  });
}

/** Throws `ConfigError` unless the forwarder can run: before anything is opened, to fail fast. */
export function checkForwarderConfig(config: Pick<Config, 'kafka'>): void {
  if (config.kafka.brokers.length === 0)
    throw new ConfigError('KAFKA_BROKERS is required by the Kafka forwarder (host:port, comma-separated).');
}
