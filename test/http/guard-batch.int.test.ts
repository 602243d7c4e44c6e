import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Auth, startAuth } from '../../src/auth/index.ts';
import { issueApiKey } from '../../src/auth/key-commands.ts';
import { loadConfig } from '../../src/config.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import type { EventStore } from '../../src/eventstore/port.ts';
import { errorHandler } from '../../src/http/error-handler.ts';
import { apiKeyGuard, consumeExtra } from '../../src/http/guard.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { controlledClock } from '../auth/guarded-app.ts';

/** An adapter carrying several operations per request (as a GraphQL batch would) calls consumeExtra. */

const clock = controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5));
let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
let auth: Auth;
let app: FastifyInstance;

beforeEach(async () => {
  temp = makeTempDir();
  const config = loadConfig({ PETSTORE_DATA_DIR: temp.dir });
  store = await openSqliteEventStore({ file: `${temp.dir}/events.sqlite` });
  auth = await startAuth({ store, config, logger: pino({ level: 'silent' }), clock });
  app = Fastify();
  app.setErrorHandler(errorHandler);
  await app.register(apiKeyGuard(auth));
  app.post('/batch', async (request, reply) => {
    const operations = (request.body as { operations: number }).operations;
    await consumeExtra(request, reply, operations - 1);
    return { executed: operations };
  });
  await app.ready();
});
afterEach(async () => {
  await app.close();
  await auth.stop();
  await store.close();
  temp.remove();
});

async function freeKey(): Promise<string> {
  const { secret, position } = await issueApiKey(
    { store, clock },
    { plan: 'free' },
    { correlationId: randomUUID() },
  );
  await auth.keys.waitFor(position);
  return secret;
}

const batch = (secret: string, operations: number) =>
  app.inject({
    method: 'POST',
    url: '/batch',
    headers: { authorization: `Bearer ${secret}` },
    payload: { operations },
  });

it('counts every operation of a batch against the key: a batch of 10 leaves 50 of 60', async () => {
  const response = await batch(await freeKey(), 10);
  expect(response.statusCode).toBe(200);
  expect(response.headers['x-ratelimit-remaining']).toBe('50');
});

it('refuses a batch that goes past the limit with 429 rate_limited', async () => {
  const secret = await freeKey();
  expect((await batch(secret, 55)).statusCode).toBe(200);
  const response = await batch(secret, 6);
  expect(response.statusCode).toBe(429);
  expect(response.json().code).toBe('rate_limited');
  expect(response.headers['retry-after']).toBe('55');
});
