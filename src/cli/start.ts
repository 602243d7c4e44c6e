import { loadConfig } from '../config.ts';
import { createLogger, startServer } from '../server.ts';

/** `petstore start`: serve the API until SIGINT or SIGTERM, then close cleanly. */
export async function run(_args: string[]): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config);
  const server = await startServer(config, logger);
  logger.info(
    { url: server.url, dataDir: config.dataDir, store: config.eventStoreUrl ? 'kurrentdb' : 'embedded' },
    'pet store listening',
  );
  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
