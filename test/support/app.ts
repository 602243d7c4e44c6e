import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { type Application, startApplication } from '../../src/application/index.ts';
import { type Clock, systemClock } from '../../src/application/context.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { openEventStore } from '../../src/eventstore/index.ts';
import type { EventStore } from '../../src/eventstore/port.ts';
import { buildApp } from '../../src/http/app.ts';
import { type Guard, openGuard } from '../../src/http/guard.ts';
import { makeTempDir } from './temp-dir.ts';

export type TestApp = {
  readonly app: FastifyInstance;
  readonly application: Application;
  readonly store: EventStore;
  readonly config: Config;
  close(): Promise<void>;
};

/**
 * The real service, in process, on a fresh embedded store in a temp directory: drive it with
 * `app.inject()`. Pass `env` to change configuration and `guard` to put a guard in front.
 */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    guard?: (config: Config, store: EventStore) => Guard | Promise<Guard>;
    clock?: Clock;
  } = {},
): Promise<TestApp> {
  const temp = makeTempDir();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PETSTORE_DATA_DIR: temp.dir,
    ...options.env,
  });
  const logger = pino({ level: config.logLevel });
  const store = await openEventStore(config);
  const application = await startApplication({ store, config, logger, clock: options.clock ?? systemClock });
  const guard = options.guard === undefined ? openGuard : await options.guard(config, store);
  const app = await buildApp({ config, application, guard, logger });
  await app.ready();
  return {
    app,
    application,
    store,
    config,
    async close() {
      await app.close();
      await application.stop();
      await store.close();
      temp.remove();
    },
  };
}
