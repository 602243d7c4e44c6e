import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKey } from '../../src/domain/api-keys.ts';
import { RateLimiter } from '../../src/application/rate-limiter.ts';
import { connectRateLimitRedis } from '../../src/rate-limits/redis.ts';
import { redisCounters } from '../../src/rate-limits/window-counter.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { canRunRedis, type RedisServer, startRedis } from '../support/redis.ts';

const available = canRunRedis('Redis rate limits');
const NOW = Date.UTC(2030, 0, 15, 10, 0, 5);
const silent = pino({ level: 'silent' });

function freeKey(): ApiKey {
  const keyId = `key_${randomUUID().slice(0, 8)}`;
  return {
    keyId,
    name: '',
    plan: 'free',
    limits: { perMinute: 60, perDay: 1000 },
    secretHash: '',
    issuedAt: '',
    revoked: false,
    bannedUntilMs: 0,
    scopes: ['pets:read'],
    expiresAtMs: 0,
    previousSecretHash: undefined,
    previousSecretValidUntilMs: 0,
  };
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(available)('rate limits in Redis', () => {
  let redis: RedisServer;
  let clients: ReturnType<typeof connectRateLimitRedis>[];

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  beforeEach(() => {
    clients = [connectRateLimitRedis(redis.url, silent), connectRateLimitRedis(redis.url, silent)];
  });
  afterEach(() => {
    for (const { client } of clients) client.disconnect();
  });

  it('enforces one combined limit for two limiters (two processes) sharing Redis: 60 of 120 requests pass', async () => {
    await until(() => clients.every(({ client }) => client.status === 'ready'));
    const limiters = clients.map(({ client, health }) => new RateLimiter(redisCounters(client, health)));
    const key = freeKey();
    const statuses = await Promise.all(
      Array.from({ length: 120 }, (_, i) => limiters[i % 2]!.limitKey(key, NOW)),
    );
    expect(statuses.filter((status) => status.allowed)).toHaveLength(60);
  });

  it.skipIf(process.env.TEST_REDIS === 'testcontainers')(
    'keeps limiting in process while Redis is down, and shares counts again once it is back',
    async () => {
      await until(() => clients.every(({ client }) => client.status === 'ready'));
      const [first, second] = clients.map(
        ({ client, health }) => new RateLimiter(redisCounters(client, health)),
      );
      const key = freeKey();
      for (let i = 0; i < 10; i++) await first!.limitKey(key, NOW);

      await redis.kill();
      const during = [];
      for (let i = 0; i < 61; i++) during.push(await first!.limitKey(key, NOW));
      expect(during.slice(0, 60).every((status) => status.allowed)).toBe(true);
      expect(during[60]!.allowed).toBe(false);

      await redis.restart();
      await until(() => clients.every(({ client }) => client.status === 'ready'), 10_000);
      const shared = [];
      for (let i = 0; i < 30; i++)
        shared.push(await first!.limitKey(key, NOW), await second!.limitKey(key, NOW));
      expect(shared.filter((status) => status.allowed)).toHaveLength(60);
      expect((await second!.limitKey(key, NOW)).remaining).toBe(0);
    },
  );

  it('logs once that Redis is unavailable when a full Redis refuses the counts, and once that it is back', async () => {
    const { logger, lines } = capturedLogger();
    const connection = connectRateLimitRedis(redis.url, logger);
    clients.push(connection);
    await until(() => connection.client.status === 'ready');
    const limiter = new RateLimiter(redisCounters(connection.client, connection.health));
    const key = freeKey();
    await connection.client.config('SET', 'maxmemory', '1');
    try {
      for (let i = 0; i < 3; i++) await limiter.limitKey(key, NOW);
    } finally {
      await connection.client.config('SET', 'maxmemory', '0');
    }
    await limiter.limitKey(key, NOW);
    await limiter.limitKey(key, NOW);

    expect(lines.map((line) => line.msg)).toEqual([
      'redis unavailable: counting rate limits in this process until it returns',
      'redis is back: rate-limit counters are shared again',
    ]);
  });
});
