import type { FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import type { Application } from '../../src/application/index.ts';
import type { CounterStore } from '../../src/application/ports/counters.ts';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { type Guard, openGuard } from '../../src/http/guard.ts';
import { type Service, startService } from '../../src/service.ts';
import { type Clock, systemClock } from '../../src/shared/context.ts';
import { makeTempDir } from './temp-dir.ts';

export type TestApp = {
  readonly app: FastifyInstance;
  readonly application: Application;
  readonly service: Service;
  readonly store: EventStore;
  readonly config: Config;
  close(): Promise<void>;
};

/**
 * The real service, in process, on a fresh embedded store in a temp directory: drive it with
 * `app.inject()`. Pass `env` to change configuration and `guard` to put a guard in front (the open
 * guard, without authentication, by default).
 */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    guard?: (service: Service) => Guard;
    clock?: Clock;
    counters?: CounterStore;
    /** Where the service logs; by default pino at LOG_LEVEL (silent) on stdout. */
    logger?: Logger;
    /** The temporal index follows the store once this settles (at once by default); see `startService`. */
    backgroundAfter?: Promise<unknown>;
  } = {},
): Promise<TestApp> {
  const temp = makeTempDir();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PETSTORE_DATA_DIR: temp.dir,
    ...options.env,
  });
  const logger = options.logger ?? pino({ level: config.logLevel });
  const service = await startService(config, logger, {
    clock: options.clock ?? systemClock,
    ...(options.counters === undefined ? {} : { counters: options.counters }),
    ...(options.backgroundAfter === undefined ? {} : { backgroundAfter: options.backgroundAfter }),
  });
  const guard = options.guard === undefined ? openGuard : options.guard(service);
  const app = await buildApp({ config, application: service.application, guard, logger });
  await app.ready();
  return {
    app,
    application: service.application,
    service,
    store: service.store,
    config,
    async close() {
      await app.close();
      await service.stop();
      temp.remove();
    },
  };
}
