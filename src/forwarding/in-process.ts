import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { EventStore } from '../application/ports/event-store.ts';
import type { ForwarderObserver } from './forwarder.ts';
import { startConfiguredForwarder } from './from-config.ts';

/**
 * The forwarder inside the API process (KAFKA_FORWARDER=true), on the API's own store handle so
 * that appends wake it at once. Being fenced by another forwarder stops only the forwarding,
 * never the API.
 */
export function startInProcessForwarder(
  config: Pick<Config, 'kafka'>,
  store: EventStore,
  logger: Logger,
  observer: ForwarderObserver = {},
): { stop(): Promise<void> } {
  const log = logger.child({ component: 'forwarder' });
  const forwarder = startConfiguredForwarder(config, store, log, observer);
  forwarder.done.catch((error: unknown) =>
    log.warn({ event: 'forwarder.stopped', err: error }, 'in-process forwarder stopped'),
  );
  log.info({ topic: config.kafka.topic }, 'in-process forwarder started');
  return { stop: () => forwarder.stop() };
}
