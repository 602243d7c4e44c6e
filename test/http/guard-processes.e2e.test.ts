import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petstoreKeys } from '../auth/cli.ts';
import { redisAvailability, type RedisServer, startRedis } from '../support/redis.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** Two real `petstore start` processes on one embedded store and one Redis. */

const availability = redisAvailability();

/** Windows are real UTC minutes here: keep a burst from straddling two of them. */
async function awayFromTheEndOfAMinute(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
}

describe.skipIf(!availability.available)('two server processes sharing Redis', () => {
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

  async function newKey(plan = 'free'): Promise<string> {
    const secret = (await petstoreKeys(temp.dir, 'create', '--plan', plan)).stdout.trim();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return secret;
  }

  const get = (server: ServerProcess, secret: string) =>
    fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
    );

  it('allows exactly the free plan’s 60 requests a minute in total across both processes', async () => {
    const secret = await newKey();
    await awayFromTheEndOfAMinute();
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => get(servers[i % 2]!, secret)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
  });

  it.skipIf(process.env.TEST_REDIS === 'testcontainers')(
    'answers without a 5xx while Redis is killed, and after it is back',
    async () => {
      const secret = await newKey('pro');
      await redis.kill();
      const during = await Promise.all(Array.from({ length: 40 }, (_, i) => get(servers[i % 2]!, secret)));
      expect(during).toEqual(Array.from({ length: 40 }, () => 200));
      await redis.restart();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const after = await Promise.all(Array.from({ length: 40 }, (_, i) => get(servers[i % 2]!, secret)));
      expect(after).toEqual(Array.from({ length: 40 }, () => 200));
    },
  );
});
