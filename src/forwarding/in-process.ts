import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { openEventStore } from '../eventstore/index.ts';
import { startConfiguredForwarder } from './from-config.ts';

/**
 * The forwarder inside the API process (KAFKA_FORWARDER=true). It opens its own handle on the
 * store, so the API's lifecycle and the forwarder's stay independent. Being fenced by another
 * forwarder stops only the forwarding, never the API.
 */
export async function startInProcessForwarder(
  config: Config,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  const log = logger.child({ component: 'forwarder' });
  const store = await openEventStore(config);
  const forwarder = startConfiguredForwarder(config, store, log);
  forwarder.done.catch((error: unknown) => log.warn({ err: error }, 'in-process forwarder stopped'));
  log.info({ topic: config.kafka.topic }, 'in-process forwarder started');
  return {
    async stop() {
      await forwarder.stop();
      await store.close();
    },
  };
}
