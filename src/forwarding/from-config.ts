import type { Config } from '../config.ts';
import type { EventStore } from '../eventstore/port.ts';
import { type Forwarder, type ForwarderLog, startForwarder } from './forwarder.ts';
import { createKafkaJsPublisher } from './kafkajs-publisher.ts';

/** The forwarder as configured: used in-process by `petstore start` and alone by `petstore forward`. */
export function startConfiguredForwarder(
  config: Pick<Config, 'kafka'>,
  store: EventStore,
  log: ForwarderLog,
): Forwarder {
  const { brokers, clientId, topic } = config.kafka;
  if (brokers.length === 0)
    throw new Error('The Kafka forwarder needs KAFKA_BROKERS (host:port, comma-separated).');
  return startForwarder({
    store,
    log,
    createPublisher: () => createKafkaJsPublisher({ brokers, clientId, topic, log }),
  });
}
