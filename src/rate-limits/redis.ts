import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { SharedCountsHealth } from './window-counter.ts';

/** The Redis client for rate-limit counters, and what it tells the operator of their sharing. */
export type RateLimitRedis = { readonly client: Redis; readonly health: SharedCountsHealth };

/**
 * The Redis client for rate-limit counters, tuned to fail fast: no offline queue and a short
 * command timeout, so that while Redis is down or stalled a request falls back to the in-process
 * counters within milliseconds instead of waiting. It reconnects on its own, forever.
 */
export function connectRateLimitRedis(url: string, logger: Logger): RateLimitRedis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  const health = redisHealth(logger);
  client.on('ready', () => health.answered());
  client.on('error', (error: Error) => health.failed(error));
  return { client, health };
}

/**
 * Logs once when counting in Redis stops working and once when it works again. The connection's
 * own events see Redis go away and come back; a Redis still connected can fail every command too
 * (stalled past the command timeout, or full under `noeviction`), which only the counters see.
 */
function redisHealth(logger: Logger): SharedCountsHealth {
  let healthy = true;
  return {
    answered() {
      if (healthy) return;
      healthy = true;
      logger.info('redis is back: rate-limit counters are shared again');
    },
    failed(error) {
      if (!healthy) return;
      healthy = false;
      logger.warn({ err: error }, 'redis unavailable: counting rate limits in this process until it returns');
    },
  };
}
