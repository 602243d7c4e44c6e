import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The Redis client for rate-limit counters, tuned to fail fast: no offline queue and a short
 * command timeout, so that while Redis is down or stalled a request falls back to the in-process
 * counters within milliseconds instead of waiting. It reconnects on its own, forever.
 */
export function connectRateLimitRedis(url: string, logger: Logger): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  let healthy = true;
  client.on('ready', () => {
    if (!healthy) logger.info('redis is back: rate-limit counters are shared again');
    healthy = true;
  });
  client.on('error', (error: Error) => {
    if (!healthy) return;
    healthy = false;
    logger.warn({ err: error }, 'redis unavailable: counting rate limits in this process until it returns');
  });
  return client;
}
