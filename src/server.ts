import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { CounterStore } from './application/ports/counters.ts';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { apiKeyGuard } from './http/guard.ts';
import { loadObservability, type ObservabilityOptions } from './observability/index.ts';
import { storeReadiness } from './observability/readiness.ts';
import { type StoreWrites, watchStoreWrites } from './observability/store-writes.ts';
import { startService } from './service.ts';
import { systemClock } from './shared/context.ts';

export type RunningServer = {
  readonly app: FastifyInstance;
  readonly url: string;
  /** Prometheus's scrape URL; undefined without METRICS_PORT. */
  readonly metricsUrl: string | undefined;
  close(): Promise<void>;
};

export type ServerOptions = {
  readonly observability?: ObservabilityOptions;
  /** Rate-limit counters; by default as the configuration says (Redis, or this process's memory). */
  readonly counters?: CounterStore;
  /** Run the in-process Kafka forwarder if configured (KAFKA_FORWARDER); under --workers, one worker does. */
  readonly forward?: boolean;
  /**
   * Called the moment the server listens (its 'listening' event), before the forwarder starts:
   * `petstore start` installs its signal handlers there. Installed any later, a SIGTERM in between
   * (a stop as a worker listens) ends the process by the signal's default action, its requests in
   * flight with it.
   */
  readonly onListening?: () => void;
  /**
   * Called once when an append finds the store broken for this process for good (the embedded
   * store's writer thread died): `petstore start` stops the server, with status 1, so that its
   * supervisor (or the primary of `--workers`) starts it again.
   */
  readonly onStoreBroken?: (error: Error) => void;
};

/** Composes the whole service from configuration and starts listening (and forwarding, if configured). */
export async function startServer(
  config: Config,
  logger: Logger = createLogger(config),
  options: ServerOptions = {},
): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const started = Date.now();
  const observability = await loadObservability(config, { ...options.observability, logger });
  const listening = Promise.withResolvers<void>();
  let writes: StoreWrites | undefined;
  const service = await startService(config, logger, {
    wrapStore: (store) => {
      writes = watchStoreWrites(store, logger, systemClock, options.onStoreBroken);
      return observability.wrapStore(store, [writes.observer]);
    },
    backgroundAfter: listening.promise,
    ...(options.counters === undefined ? {} : { counters: options.counters }),
  });
  logger.info(
    { ms: Date.now() - started, checkpoint: service.readModels.checkpoint?.toString() },
    'read models ready',
  );
  const app = await buildApp({
    config,
    application: observability.wrapApplication(service.application),
    guard: apiKeyGuard({ ...service.auth, onDecision: observability.onRateLimitDecision }),
    logger,
    readiness: storeReadiness({
      store: service.store,
      readers: () =>
        service.readModels.readModels.map((r) => ({ name: r.projection.name, checkpoint: r.checkpoint })),
      maxLagMs: config.readinessMaxLagMs,
      untrusted: () => service.readModels.passedOver,
      clock: systemClock,
      ...(writes && { writes }),
    }),
    observers: observability.httpObservers,
    graphqlObservers: observability.graphqlObservers,
    ...(observability.onStreamsOpen && { onStreamsOpen: observability.onStreamsOpen }),
  });
  let url: string;
  try {
    await observability.started(service.store, service.readModels.readModels);
    // Waited for here, not in startService: the thread starts while the app is built.
    await service.writerStarted;
    // At the server's 'listening' event, before Fastify logs the address and before `listen`
    // resolves: under --workers, the primary counts a worker as listening from that moment, and a
    // SIGTERM it forwards after it must find the handlers (after `await listen`, a loaded machine
    // left a window in which the signal's default action ended a listening worker: "did not stop
    // cleanly", status 1).
    const onListening = options.onListening;
    if (onListening !== undefined) app.server.once('listening', () => onListening());
    url = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // A port in use, a bad host, a writer that cannot start: give the store back (and save
    // snapshots) before failing.
    await app.close();
    await observability.close();
    await service.stop();
    throw error;
  }
  listening.resolve();
  // kafkajs is loaded only when forwarding is on.
  const forwarder =
    config.kafka.inProcessForwarder && options.forward !== false
      ? (await import('./forwarding/in-process.ts')).startInProcessForwarder(
          config,
          service.store,
          logger,
          observability.forwarder(service.store, config.kafka.topic),
        )
      : undefined;

  let closing: Promise<void> | undefined;
  return {
    app,
    url,
    metricsUrl: observability.metricsUrl,
    close() {
      closing ??= (async () => {
        await forwarder?.stop();
        await app.close();
        await service.stop();
        await observability.close();
      })();
      return closing;
    },
  };
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel });
}
