import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { buildApp } from '../../src/http/app.ts';
import { openGuard } from '../../src/http/guard.ts';
import { type Service, startService } from '../../src/service.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { holdableStore } from '../support/holdable-store.ts';
import { storeWith } from '../support/store-with.ts';
import type { EventStore } from '../../src/application/ports/event-store.ts';

const temp = makeTempDir();
const underlying = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
const switchable = holdableStore(underlying);
let service: Service;
let app: FastifyInstance;

beforeAll(async () => {
  const config = loadConfig({
    PETSTORE_DATA_DIR: temp.dir,
    LOG_LEVEL: 'silent',
    MIN_POSITION_WAIT_MS: '300',
  });
  const logger = pino({ level: 'silent' });
  service = await startService(config, logger, { store: switchable.store });
  app = await buildApp({ config, application: service.application, guard: openGuard, logger });
});
afterAll(async () => {
  await app.close();
  await service.stop();
  await underlying.close();
  temp.remove();
});

const json = { 'content-type': 'application/json' };
const lastPositionOf = async (stream: string) =>
  String((await underlying.readStream(stream)).at(-1)!.position);

async function createPet(): Promise<{ id: number; position: string | undefined }> {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: json,
    payload: { name: 'Rex', categoryId: 1 },
  });
  return {
    id: response.json<{ id: number }>().id,
    position: response.headers['x-store-position'] as string | undefined,
  };
}

describe('X-Store-Position on writes', () => {
  it('is the position of the PetCreated a POST appended', async () => {
    const { id, position } = await createPet();
    expect(position).toBe(await lastPositionOf(`pet-${id}`));
  });

  it('is the position of the last of the events a PATCH appended', async () => {
    const { id } = await createPet();
    const response = await app.inject({
      method: 'PATCH',
      url: `/v1/pets/${id}`,
      headers: json,
      payload: { name: 'Max', status: 'sold' },
    });
    expect((await underlying.readStream(`pet-${id}`)).map((event) => event.type)).toEqual([
      'PetCreated',
      'PetRenamed',
      'PetStatusChanged',
    ]);
    expect(response.headers['x-store-position']).toBe(await lastPositionOf(`pet-${id}`));
  });

  it('is the position of the PetRemoved a DELETE appended', async () => {
    const { id } = await createPet();
    const response = await app.inject({ method: 'DELETE', url: `/v1/pets/${id}` });
    expect([response.statusCode, response.headers['x-store-position']]).toEqual([
      204,
      await lastPositionOf(`pet-${id}`),
    ]);
  });

  it('is the store’s last position for a write that appended nothing', async () => {
    const { id } = await createPet();
    await createPet();
    const response = await app.inject({
      method: 'PATCH',
      url: `/v1/pets/${id}`,
      headers: json,
      payload: { name: 'Rex' },
    });
    expect(response.headers['x-store-position']).toBe(String(await underlying.headPosition()));
  });

  it('is on a GraphQL write, header and extensions.storePosition alike', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: json,
      payload: {
        query: 'mutation { createPet(input: { name: "Gql", categoryId: 2 }) { ... on Pet { id } } }',
      },
    });
    const body = response.json<{
      data: { createPet: { id: number } };
      extensions: { storePosition: string };
    }>();
    const position = await lastPositionOf(`pet-${body.data.createPet.id}`);
    expect([body.extensions.storePosition, response.headers['x-store-position']]).toEqual([
      position,
      position,
    ]);
  });

  it('is not on reads', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/pets' });
    expect(response.headers['x-store-position']).toBeUndefined();
  });
});

describe('X-Min-Position on reads', () => {
  it('answers at once when the read models include the position', async () => {
    const { id, position } = await createPet();
    const response = await app.inject({
      method: 'GET',
      url: `/v1/pets/${id}`,
      headers: { 'x-min-position': position! },
    });
    expect(response.statusCode).toBe(200);
  });

  it('is met at once, with no promise to wait on, by exactly the position the read models reached', async () => {
    const { position } = await createPet();
    expect([service.readModels.checkpoint, service.application.awaitPosition(position!)]).toEqual([
      BigInt(position!),
      undefined,
    ]);
  });

  it('waits for the read models to reach the position, then answers with what it holds', async () => {
    switchable.hold();
    const id = (await createPetBehindTheReadModels()).id;
    const read = app.inject({
      method: 'GET',
      url: `/v1/pets/${id}`,
      headers: { 'x-min-position': await lastPositionOf(`pet-${id}`) },
    });
    setTimeout(switchable.release, 100);
    expect((await read).json()).toMatchObject({ id, name: 'Behind' });
  });

  it('answers 503 position_not_reached with Retry-After when they do not reach it in time', async () => {
    switchable.hold();
    try {
      const { id } = await createPetBehindTheReadModels();
      const position = await lastPositionOf(`pet-${id}`);
      const response = await app.inject({
        method: 'GET',
        url: `/v1/pets/${id}`,
        headers: { 'x-min-position': position },
      });
      expect([response.statusCode, response.headers['retry-after'], response.json()]).toEqual([
        503,
        '1',
        {
          code: 'position_not_reached',
          message: `This server's read models did not reach store position ${position} within 300 ms; retry shortly, or ask another server.`,
          status: 503,
        },
      ]);
    } finally {
      switchable.release();
    }
  });

  it('refuses a position that is not one, or that the store never gave', async () => {
    const past = String((await underlying.headPosition())! + 1000n);
    for (const [value, message] of [
      ['soon', 'X-Min-Position must be a store position: decimal digits.'],
      [past, `X-Min-Position ${past} is past the store's last event: only send positions this service gave.`],
    ]) {
      const response = await app.inject({
        method: 'GET',
        url: '/v1/pets',
        headers: { 'x-min-position': value! },
      });
      expect([response.statusCode, response.json()]).toEqual([
        400,
        { code: 'validation_failed', message, status: 400 },
      ]);
    }
  });
  it('refuses an X-Min-Position sent twice as sent twice, not as a position that is not one', async () => {
    const position = String(await underlying.headPosition());
    const response = await app.inject({
      method: 'GET',
      url: '/v1/pets',
      headers: { 'x-min-position': [position, position] },
    });
    expect([response.statusCode, response.json()]).toEqual([
      400,
      { code: 'validation_failed', message: 'X-Min-Position must be sent at most once.', status: 400 },
    ]);
  });
});

describe('X-Min-Position on a service whose read models see nothing of the store', () => {
  let own: Awaited<ReturnType<typeof startBlindService>>;
  beforeAll(async () => {
    own = await startBlindService();
  });
  afterAll(async () => {
    await own.close();
  });

  it('refuses any position while the store has no event: it gave none', async () => {
    const response = await own.app.inject({
      method: 'GET',
      url: '/v1/pets',
      headers: { 'x-min-position': '1' },
    });
    expect([response.statusCode, response.json()]).toEqual([
      400,
      {
        code: 'validation_failed',
        message: "X-Min-Position 1 is past the store's last event: only send positions this service gave.",
        status: 400,
      },
    ]);
  });

  it('answers 503, not what its read models hold, when they stop before reaching the position', async () => {
    const { id } = await createPetBehindTheReadModels(own.store);
    const read = own.app.inject({
      method: 'GET',
      url: `/v1/pets/${id}`,
      headers: { 'x-min-position': String(await own.store.headPosition()) },
    });
    await own.stopReadModels();
    expect([(await read).statusCode, (await read).json<{ code: string }>().code]).toEqual([
      503,
      'position_not_reached',
    ]);
  });
});

/**
 * A service of its own on an empty store whose subscriptions deliver nothing until closed: its read
 * models never reach what is written, and stop when told.
 */
async function startBlindService() {
  const dir = makeTempDir();
  const store = openSqliteEventStore({ file: path.join(dir.dir, 'events.sqlite') });
  const blind = storeWith(store, {
    subscribeToAll(options) {
      const subscription = store.subscribeToAll(options);
      const closed = Promise.withResolvers<void>();
      return {
        ...subscription,
        async *batches() {
          await closed.promise;
          yield* []; // nothing, ever
        },
        close: async () => {
          closed.resolve();
          await subscription.close();
        },
      };
    },
  });
  const config = loadConfig({ PETSTORE_DATA_DIR: dir.dir, LOG_LEVEL: 'silent', MIN_POSITION_WAIT_MS: '300' });
  const logger = pino({ level: 'silent' });
  const blindService = await startService(config, logger, { store: blind });
  const blindApp = await buildApp({
    config,
    application: blindService.application,
    guard: openGuard,
    logger,
  });
  let stopped: Promise<void> | undefined;
  const stopReadModels = () => (stopped ??= blindService.stop());
  return {
    app: blindApp,
    store,
    stopReadModels,
    async close() {
      await blindApp.close();
      await stopReadModels();
      await store.close();
      dir.remove();
    },
  };
}

/** A pet written straight to the store, as another process would: this one's read models do not have it yet. */
async function createPetBehindTheReadModels(store: EventStore = underlying): Promise<{ id: number }> {
  const id = 900_000 + Math.floor(Math.random() * 99_999);
  const metadata = {
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'other',
    schemaVersion: 2,
  };
  await store.appendToStream(`pet-${id}`, [
    { type: 'PetCreated', data: { id, name: 'Behind', categoryId: 1 }, metadata },
  ]);
  return { id };
}
