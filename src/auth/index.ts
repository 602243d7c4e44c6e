import type { Logger } from 'pino';
import { type Clock, systemClock } from '../application/context.ts';
import type { Config } from '../config.ts';
import type { EventStore } from '../eventstore/port.ts';
import type { ProjectionGroup } from '../read-models/runner.ts';
import type { ApiKey } from './api-keys.ts';
import { banApiKey } from './key-commands.ts';
import { KeyRegistry } from './key-registry.ts';
import { RateLimiter } from './rate-limiter.ts';
import { REJECTED_REQUESTS_BEFORE_BAN } from './rate-decision.ts';
import { connectRateLimitRedis } from './redis.ts';
import { type CounterStore, memoryCounters, redisCounters } from './window-counter.ts';

/** What the HTTP guard (src/http/guard.ts) needs, composed in src/server.ts: `apiKeyGuard(auth)`. */
export type Auth = {
  readonly keys: KeyRegistry;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /** Bans a key that keeps sending after 429; resolves to the key's state after the ban. */
  banKey(key: ApiKey, correlationId: string): Promise<ApiKey | undefined>;
  stop(): Promise<void>;
};

export type AuthOptions = {
  readonly store: EventStore;
  readonly config: Pick<Config, 'dataDir' | 'redisUrl' | 'rateLimitBanSeconds' | 'snapshotEveryEvents'>;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** The process's read models, fed by one subscription; the key registry joins it. */
  readonly readModels?: ProjectionGroup;
  /** Where rate-limit counts are kept; by default Redis when REDIS_URL is set, else this process's memory. */
  readonly counters?: CounterStore;
};

/**
 * Authentication and rate limits for the whole service: the key read model (caught up before the
 * first request), the counters (Redis when REDIS_URL is set, else memory) and bans.
 */
export async function startAuth(options: AuthOptions): Promise<Auth> {
  const { store, config, logger } = options;
  const clock = options.clock ?? systemClock;
  const keys = new KeyRegistry({
    store,
    logger,
    dataDir: config.dataDir,
    snapshotEveryEvents: config.snapshotEveryEvents,
    ...(options.readModels === undefined ? {} : { readModels: options.readModels }),
  });
  await keys.start();
  const redis =
    config.redisUrl === undefined || options.counters !== undefined
      ? undefined
      : connectRateLimitRedis(config.redisUrl, logger);
  const limiter = new RateLimiter(
    options.counters ?? (redis === undefined ? memoryCounters() : redisCounters(redis)),
  );

  /**
   * Resolves the key as the ban command left it, without waiting for the read model: banned, or
   * already banned by another process. Undefined when the key is unknown or the store failed.
   */
  async function banKey(key: ApiKey, correlationId: string): Promise<ApiKey | undefined> {
    try {
      const reason = `more than ${REJECTED_REQUESTS_BEFORE_BAN} requests past the limit in one window`;
      const change = await banApiKey(
        { store, clock },
        key.keyId,
        { seconds: config.rateLimitBanSeconds, reason },
        { correlationId },
      );
      if (change.changed && change.key !== undefined) {
        const until = new Date(change.key.bannedUntilMs).toISOString();
        logger.warn({ keyId: key.keyId, until, reason }, 'API key banned');
      }
      return change.key;
    } catch (error) {
      logger.error({ err: error, keyId: key.keyId }, 'could not ban an API key: it stays rate-limited');
      return undefined;
    }
  }

  return {
    keys,
    limiter,
    clock,
    banKey,
    async stop() {
      await keys.stop();
      redis?.disconnect();
    },
  };
}
