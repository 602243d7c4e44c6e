import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { apiKeyGuard } from './http/guard.ts';
import { startService } from './service.ts';

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
  const started = Date.now();
  const service = await startService(config, logger);
  logger.info(
    { ms: Date.now() - started, checkpoint: service.readModels.checkpoint?.toString() },
    'read models ready',
  );
  const app = await buildApp({
    config,
    application: service.application,
    guard: apiKeyGuard(service.auth),
    logger,
  });
  let url: string;
  try {
    url = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // A port in use or a bad host: give the store back (and save snapshots) before failing.
    await app.close();
    await service.stop();
    throw error;
  }
  // kafkajs is loaded only when forwarding is on.
  const forwarder = config.kafka.inProcessForwarder
    ? (await import('./forwarding/in-process.ts')).startInProcessForwarder(config, service.store, logger)
    : undefined;

  let closing: Promise<void> | undefined;
  return {
    app,
    url,
    close() {
      closing ??= (async () => {
        await forwarder?.stop();
        await app.close();
        await service.stop();
      })();
      return closing;
    },
  };
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel });
}
