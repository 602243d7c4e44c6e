import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { startApplication } from './application/index.ts';
import { startAuth } from './auth/index.ts';
import type { Config } from './config.ts';
import { openEventStore } from './eventstore/index.ts';
import { buildApp } from './http/app.ts';
import { apiKeyGuard } from './http/guard.ts';
import { ProjectionGroup } from './read-models/runner.ts';
import { dataDirSnapshots } from './read-models/snapshot-file.ts';

export type RunningServer = {
  readonly app: FastifyInstance;
  readonly url: string;
  close(): Promise<void>;
};

/** Composes the whole service from configuration and starts listening (and forwarding, if configured). */
export async function startServer(
  config: Config,
  logger: Logger = createLogger(config),
): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const store = await openEventStore(config, logger.child({ component: 'eventstore' }));
  const started = Date.now();
  // Every read model of the process (pets, API keys) from one subscription: one replay at start-up.
  const readModels = new ProjectionGroup({
    store,
    snapshots: dataDirSnapshots(config.dataDir),
    snapshotEveryEvents: config.snapshotEveryEvents,
    logger,
  });
  const application = await startApplication({ store, config, logger, readModels });
  const auth = await startAuth({ store, config, logger, readModels });
  await readModels.start();
  logger.info(
    { ms: Date.now() - started, checkpoint: readModels.checkpoint?.toString() },
    'read models ready',
  );
  const app = await buildApp({ config, application, guard: apiKeyGuard(auth), logger });
  const url = await app.listen({ port: config.port, host: config.host });
  // kafkajs is loaded only when forwarding is on.
  const forwarder = config.kafka.inProcessForwarder
    ? (await import('./forwarding/in-process.ts')).startInProcessForwarder(config, store, logger)
    : undefined;

  let closing: Promise<void> | undefined;
  return {
    app,
    url,
    close() {
      closing ??= (async () => {
        await forwarder?.stop();
        await app.close();
        await auth.stop();
        await application.stop();
        await readModels.stop();
        await store.close();
      })();
      return closing;
    },
  };
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel });
}
