import path from 'node:path';
import type { Logger } from 'pino';
import { apiKeysProjection } from '../projections/api-keys.ts';
import { ordersProjection } from '../projections/orders.ts';
import { petListProjection } from '../projections/pet-list.ts';
import type { Projection } from '../projections/projection.ts';
import { type Auth, createAuth } from './application/auth.ts';
import { grantDefaultScopes } from './application/commands/api-keys.ts';
import { type Application, createApplication } from './application/index.ts';
import type { CounterStore } from './application/ports/counters.ts';
import { type EventStore, StoreUnavailableError } from './application/ports/event-store.ts';
import type { Config } from './config.ts';
import { openEventStore } from './eventstore/index.ts';
import { memoryCounters, redisCounters } from './rate-limits/window-counter.ts';
import { apiKeyReadModel } from './read-models/api-key-read-model.ts';
import { orderReadModel } from './read-models/order-read-model.ts';
import { petReadModel } from './read-models/pet-read-model.ts';
import { readModelOperations } from './read-models/operations.ts';
import { ProjectionGroup } from './read-models/runner.ts';
import { openTemporalIndex } from './read-models/temporal-index-file.ts';
import { dataDirSnapshots } from './read-models/snapshot-file.ts';
import { type Clock, systemClock } from './shared/context.ts';

/** Every projection a server keeps a read model of (operators' commands list them from here). */
export const PROJECTIONS = [
  petListProjection,
  apiKeysProjection,
  ordersProjection,
] as unknown as readonly Projection<unknown>[];

/**
 * The service without its HTTP edge: the event store, every read model of the process (fed by one
 * subscription), the application and authentication. The composition root for the server, the CLI
 * and tests alike.
 */
export type Service = {
  readonly store: EventStore;
  readonly readModels: ProjectionGroup;
  readonly application: Application;
  readonly auth: Auth;
  /**
   * Settles once the store's writer has started and answered a probe (the embedded store's thread),
   * which began with the service: rejects if it cannot start, so that a server fails start-up
   * rather than at its first write. A store that refuses writes for now (a full disk) resolves it.
   */
  readonly writerStarted: Promise<void>;
  /** Stops following the store and saves snapshots; closes the store only if this service opened it. */
  stop(): Promise<void>;
};

export type ServiceOptions = {
  /** A store opened by the caller (who closes it); by default the one the configuration names. */
  readonly store?: EventStore;
  readonly clock?: Clock;
  /** Rate-limit counters; by default Redis when REDIS_URL is set, else this process's memory. */
  readonly counters?: CounterStore;
  /** Save read-model snapshots in the data directory (the server does; a one-off CLI command need not). */
  readonly snapshots?: boolean;
  /** Decorates the store every part of the service uses (metrics, tracing: see src/observability). */
  readonly wrapStore?: (store: EventStore) => EventStore;
  /**
   * The temporal index starts following the store once this settles (at once when not given):
   * the server passes its listening, so that the index's catch-up does not share the event loop
   * with building the HTTP app. Nothing waits for the index before then: no request can arrive.
   */
  readonly backgroundAfter?: Promise<unknown>;
};

type ServiceConfig = Pick<
  Config,
  | 'dataDir'
  | 'eventStoreUrl'
  | 'logLevel'
  | 'petIdBlockSize'
  | 'idempotencyKeyTtlMs'
  | 'snapshotEveryEvents'
  | 'minPositionWaitMs'
  | 'redisUrl'
  | 'rateLimitBanSeconds'
  | 'anonymousLimits'
  | 'failpoint'
>;

/** Opens the store (unless given), catches every read model up with it, and follows it from then on. */
export async function startService(
  config: ServiceConfig,
  logger: Logger,
  options: ServiceOptions = {},
): Promise<Service> {
  const clock = options.clock ?? systemClock;
  const opened = options.store ?? (await openEventStore(config, logger.child({ component: 'eventstore' })));
  const store = options.wrapStore === undefined ? opened : options.wrapStore(opened);
  // The embedded store's writer thread starts now, beside the catch-up, not with the first write: a
  // thread and its connection to the store need file descriptors, which a flood of connections
  // under a container's `ulimit -n` may have used up by then (the first write then found the store
  // broken, and the process stopped). See Service.writerStarted.
  const writerStarted = store.checkWritable().catch((error: unknown) => {
    if (!(error instanceof StoreUnavailableError)) throw error;
  });
  writerStarted.catch(() => {}); // a caller that does not wait for it is told by the first write
  const snapshots = options.snapshots === false ? undefined : dataDirSnapshots(config.dataDir);
  const readModels = new ProjectionGroup({
    store,
    logger,
    ...(snapshots && { snapshots, snapshotEveryEvents: config.snapshotEveryEvents }),
  });
  const waitFor = (position: bigint) => readModels.waitFor(position);
  const pets = petReadModel(readModels.add(petListProjection), waitFor);
  const keys = apiKeyReadModel(readModels.add(apiKeysProjection), waitFor);
  const orders = orderReadModel(readModels.add(ordersProjection), waitFor);
  // ioredis takes about 0.3 s to load on a cold start: only when REDIS_URL asks for it.
  const redis =
    config.redisUrl === undefined || options.counters !== undefined
      ? undefined
      : (await import('./rate-limits/redis.ts')).connectRateLimitRedis(config.redisUrl, logger);
  const counters =
    options.counters ?? (redis === undefined ? memoryCounters() : redisCounters(redis.client, redis.health));
  const temporal = openTemporalIndex(path.join(config.dataDir, 'temporal-index.sqlite'), store, logger);
  const application = createApplication({
    store,
    pets,
    orders,
    keys,
    temporal,
    progress: readModels,
    readModels: readModelOperations({ group: readModels, store, snapshots, logger }),
    clock,
    logger,
    config,
  });
  const auth = createAuth({
    store,
    keys,
    counters,
    clock,
    banSeconds: config.rateLimitBanSeconds,
    anonymousLimits: config.anonymousLimits,
    logger,
  });
  try {
    await readModels.start();
  } catch (error) {
    // A store that cannot be read (damaged, unreachable) fails start-up instead of retrying forever.
    redis?.client.disconnect();
    if (options.store === undefined) await store.close().catch(() => {});
    throw error;
  }
  // The index catches up in the background: only as-of reads wait for it. With a million pets to
  // catch up on, starting it before the HTTP app was built held a start from the snapshot by 60 and
  // 180 ms (medians of two sets of 12 and 8 alternating starts). A start after `stop()` (the server
  // failed to listen) does nothing.
  const startTemporal = () => temporal.start();
  if (options.backgroundAfter === undefined) startTemporal();
  else void options.backgroundAfter.then(startTemporal, startTemporal);
  await grantLegacyKeysTheirScopes(store, auth, clock);
  return {
    store,
    readModels,
    application,
    auth,
    writerStarted,
    async stop() {
      await temporal.stop();
      await readModels.stop();
      redis?.client.disconnect();
      if (options.store === undefined) await store.close();
    },
  };
}

/** Keys issued before scopes existed get the default ones (an event each) before the first request. */
async function grantLegacyKeysTheirScopes(store: EventStore, auth: Auth, clock: Clock): Promise<void> {
  const position = await grantDefaultScopes({ store, clock }, auth.keys.list(), {
    correlationId: 'scopes-introduced',
  });
  if (position !== undefined) await auth.keys.waitFor(position);
}
