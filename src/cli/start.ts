import type { Logger } from 'pino';
import {
  answerMetricsRequests,
  type Primary,
  reportStartFailure,
  runPrimary,
  stopWithPrimary,
  workerCounters,
  workerIndex,
} from '../cluster.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { openEventStore } from '../eventstore/index.ts';
import { NotAnEventStoreError } from '../eventstore/sqlite-database.ts';
import { SQLITE_CORRUPT, SQLITE_NOTADB, sqlitePrimaryCode } from '../shared/sqlite-file.ts';
import { type ServerOptions, startServer } from '../server.ts';
import { parseCommandLine } from './command-line.ts';
import { descriptorsFailure } from './descriptors.ts';
import { exitAfterLogs } from './exit-after-logs.ts';
import { createCliLogger } from './logger.ts';
import { describeStore, ensureWritableStore, prepareStore, storeFailure } from './store.ts';
import { CommandFailure } from './usage-error.ts';

/** The flags of `petstore start`, each overriding its environment variable. */
const FLAGS = { port: 'PORT', host: 'HOST', 'data-dir': 'PETSTORE_DATA_DIR', workers: 'WORKERS' } as const;

/** A shutdown that has not finished by then is stuck: the process exits anyway, with status 1. */
const SHUTDOWN_TIMEOUT_MS = 15_000;

/** `petstore start`: serve the API until SIGINT or SIGTERM, then close cleanly. */
export async function run(args: string[]): Promise<void> {
  const config = configWithFlags(args);
  const worker = workerIndex(process.env);
  if (worker === undefined) {
    prepareStore(config, 'start', 'may-create');
    ensureWritableStore(config);
  }
  const logger = await createCliLogger(config, process.stdout.isTTY === true);
  if (worker === undefined && config.workers > 1) return runWorkers(config, logger);
  const options: ServerOptions =
    worker === undefined
      ? {}
      : {
          // Without Redis, the primary holds the rate-limit counts of all the workers.
          ...(config.redisUrl === undefined ? { counters: workerCounters() } : {}),
          forward: worker === 0,
          // Answered from the start, with nothing until the metrics exist.
          observability: { clusterWorker: { index: worker, ...answerMetricsRequests() } },
        };
  if (worker !== undefined) stopWithPrimary(() => process.kill(process.pid, 'SIGTERM'));
  const serverLogger = worker === undefined ? logger : logger.child({ worker });
  // The handlers are installed as the server listens: before, a SIGTERM ends the process by its
  // default action, as there is nothing to drain yet (and the primary counts that a clean stop).
  let stop: ((why: string) => void) | undefined;
  const starting = startServer(config, serverLogger, {
    ...options,
    onListening: () => {
      stop = stopOnSignals(() => starting.then((started) => started.close()), serverLogger);
    },
    onStoreBroken: (error) => {
      serverLogger.fatal(
        { err: error },
        'the event store cannot be written by this process any more: stopping, with status 1, so that a restart brings it back',
      );
      process.exitCode = 1;
      stop?.('store-broken');
    },
  });
  const server = await starting.catch(async (error: unknown) => {
    const failure = startFailure(error, config);
    // Every worker may fail alike: the primary prints the first reason alone.
    if (worker === undefined || !(failure instanceof CommandFailure)) throw failure;
    await reportStartFailure(failure.message);
    process.exit(1);
  });
  if (worker === undefined) listeningLine(logger, config, server.url, server.metricsUrl);
}

function listeningLine(logger: Logger, config: Config, url: string, metricsUrl: string | undefined): void {
  logger.info(
    {
      url,
      dataDir: config.dataDir,
      store: config.eventStoreUrl ? 'kurrentdb' : 'embedded',
      storeLocation: describeStore(config),
      ...(config.workers > 1 ? { workers: config.workers } : {}),
      ...(metricsUrl === undefined ? {} : { metricsUrl }),
    },
    'pet store listening',
  );
}

/**
 * The primary of `--workers N` (see src/cluster.ts): makes the store once, so that the workers open
 * one that exists, serves the workers' aggregated metrics, and waits until they have all stopped.
 */
async function runWorkers(config: Config, logger: Logger): Promise<void> {
  await (
    await openEventStore(config).catch((error: unknown) => {
      throw startFailure(error, config);
    })
  ).close();
  // The primary starts once the metrics listener does, which may fail first.
  const started: { primary?: Primary } = {};
  const metrics =
    config.metrics.port === undefined
      ? undefined
      : await (
          await import('../observability/metrics/cluster.ts')
        )
          .startClusterMetricsListener({
            port: config.metrics.port,
            host: config.metrics.host,
            collect: async (timeoutMs) => (await started.primary?.collectMetrics(timeoutMs)) ?? [],
            log: logger,
          })
          .catch((error: unknown) => {
            throw startFailure(error, config);
          });
  const primary = runPrimary(config.workers, logger, (message) =>
    process.stderr.write(`petstore start: ${message}\n`),
  );
  started.primary = primary;
  primary.listening.then(
    (url) => listeningLine(logger, config, url, metrics?.url),
    // A worker failed to start: it has said why on stderr, and the primary set status 1.
    () => {},
  );
  await primary.stopped;
  await metrics?.close();
  logger.info({}, 'pet store stopped');
  await exitAfterLogs(logger, Number(process.exitCode ?? 0));
}

function configWithFlags(args: string[]): Config {
  const { values } = parseCommandLine(
    {
      args,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        workers: { type: 'string' },
      },
    },
    (flag) => FLAGS[flag as keyof typeof FLAGS],
  );
  const overrides = Object.fromEntries(
    Object.entries(values).map(([flag, value]) => [FLAGS[flag as keyof typeof FLAGS], value]),
  );
  try {
    return loadConfig({ ...process.env, ...overrides });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Name the flag the operator typed rather than the variable it stands for.
    let message = error.message;
    for (const [flag, variable] of Object.entries(FLAGS)) {
      if (values[flag as keyof typeof FLAGS] !== undefined)
        message = message.replace(`  ${variable}=`, `  --${flag}=`);
    }
    throw new ConfigError(message);
  }
}

/** Whether `error` comes of a store that was opened and read: its contents are the cause. */
function readTheStore(error: unknown): boolean {
  if (error instanceof NotAnEventStoreError) return true;
  const code = sqlitePrimaryCode(error);
  return code === SQLITE_NOTADB || code === SQLITE_CORRUPT;
}

/** Why the server could not start, in one line, for the failures an operator causes and can fix. */
function startFailure(error: unknown, config: Config): unknown {
  const { code } = (error ?? {}) as NodeJS.ErrnoException;
  const metrics = isMetricsListenerFailure(error, config);
  const port = metrics ? config.metrics.port : config.port;
  const host = metrics ? config.metrics.host : config.host;
  switch (code) {
    case 'EADDRINUSE':
      return new CommandFailure(
        `port ${port} on ${host} is in use; choose another with ${metrics ? 'METRICS_PORT' : '--port or PORT'}`,
      );
    case 'EACCES':
      return new CommandFailure(`no permission to listen on port ${port} (ports below 1024 need privileges)`);
    case 'EADDRNOTAVAIL':
      return new CommandFailure(`cannot listen on ${host}: it is not an address of this machine`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new CommandFailure(
        `cannot listen on ${host}: no such host (${metrics ? 'METRICS_HOST' : '--host or HOST'})`,
      );
    default: {
      // Ahead of the store's reasons: a start short of descriptors fails wherever it opened its
      // next file, in that file's words (the temporal index "cannot be opened … delete it").
      // A store it opened and read (another database, a damaged or foreign file) says what it is,
      // whatever the limit: only a failure to open may be for want of a descriptor.
      const shortOfDescriptors = readTheStore(error) ? undefined : descriptorsFailure(error);
      if (shortOfDescriptors !== undefined) return new CommandFailure(shortOfDescriptors, { cause: error });
      return storeFailure(error) ?? error;
    }
  }
}

/**
 * Whether the listener that failed is the metrics listener (METRICS_PORT, METRICS_HOST) rather than
 * the API's. Node's error names the port it could not listen on, or, when the name did not
 * resolve, the host name alone.
 */
function isMetricsListenerFailure(error: unknown, config: Config): boolean {
  if (config.metrics.port === undefined) return false;
  const { port, hostname } = (error ?? {}) as { port?: number; hostname?: string };
  if (hostname !== undefined) return hostname === config.metrics.host && hostname !== config.host;
  return port !== undefined && port === config.metrics.port && port !== config.port;
}

/**
 * The first SIGINT or SIGTERM closes the server (in-flight requests finish, snapshots are saved).
 * Later ones are ignored rather than fatal: a Ctrl-C under `npm start` reaches this process twice,
 * from the terminal and forwarded by npm, and the second must not cut the shutdown short.
 */
/**
 * Stops the server cleanly on SIGINT or SIGTERM, or when the returned function is called (`why`
 * is logged as the signal would be); exits with `process.exitCode`, 0 unless set.
 */
function stopOnSignals(close: () => Promise<void>, logger: Logger): (why: string) => void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error({ timeoutMs: SHUTDOWN_TIMEOUT_MS }, 'shutdown did not finish in time: exiting');
      void exitAfterLogs(logger, 1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    close().then(
      () => {
        logger.info({}, 'pet store stopped');
        void exitAfterLogs(logger, Number(process.exitCode ?? 0));
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        void exitAfterLogs(logger, 1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return stop;
}
