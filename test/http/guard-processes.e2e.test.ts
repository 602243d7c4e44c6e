import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petstoreKeys } from '../support/cli.ts';
import { canRunRedis, type RedisServer, startRedis } from '../support/redis.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** Two real `petstore start` processes on one embedded store and one Redis. */

const available = canRunRedis('Two server processes sharing Redis');

/** Windows are real UTC minutes here: keep a burst from straddling two of them. */
async function awayFromTheEndOfAMinute(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
}

/** Polls until `check` holds, for at most `ms`; resolves whether it held. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  do {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  } while (Date.now() < deadline);
  return false;
}

describe.runIf(available)('two server processes sharing Redis', () => {
  let redis: RedisServer;
  let temp: ReturnType<typeof makeTempDir>;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    temp = makeTempDir();
    const env = { PETSTORE_DATA_DIR: temp.dir, REDIS_URL: redis.url };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    await redis?.stop();
    temp?.remove();
  });

  const get = (server: ServerProcess, secret: string) =>
    fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
    );

  /** A new free key, once both processes serve it: that takes exactly one request on each. */
  async function newKey(): Promise<string> {
    const secret = (await petstoreKeys(temp.dir, 'create', '--plan', 'free')).stdout.trim();
    for (const server of servers) {
      expect(await within(5000, async () => (await get(server, secret)) === 200)).toBe(true);
    }
    return secret;
  }

  it('allows exactly the free plan’s 60 requests a minute in total across both processes', async () => {
    await awayFromTheEndOfAMinute();
    const secret = await newKey();
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => get(servers[i % 2]!, secret)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(58);
    expect(statuses.filter((status) => status === 429)).toHaveLength(42);
  });

  it.skipIf(process.env.TEST_REDIS === 'testcontainers')(
    'keeps limiting in each process while Redis is down (the 61st request there is 429), and shares counts again once it is back',
    async () => {
      await awayFromTheEndOfAMinute();
      const secret = await newKey();
      await redis.kill();
      const during = [];
      for (let i = 0; i < 61; i++) during.push(await get(servers[0]!, secret));
      expect(during.slice(0, 60)).toEqual(Array.from({ length: 60 }, () => 200));
      expect(during[60]).toBe(429);

      await redis.restart();
      const client = new Redis(redis.url, { lazyConnect: true });
      try {
        await client.connect();
        const countedInRedis = async () => (await client.keys('petstore:rl:key:m:*')).length > 0;
        // The process that refused the key in memory serves it again, counting in Redis.
        expect(
          await within(10_000, async () => (await get(servers[0]!, secret)) === 200 && countedInRedis()),
        ).toBe(true);
      } finally {
        client.disconnect();
      }
      const after = await Promise.all(Array.from({ length: 10 }, (_, i) => get(servers[i % 2]!, secret)));
      expect(after).toEqual(Array.from({ length: 10 }, () => 200));
    },
  );
});
