import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { createApiKey, startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Two aggregates, one outcome, across crashes: an order and its pet's change are one atomic append,
 * so a process killed half-way (between the order's events and the pet's, by the test failpoint;
 * or at any moment under load) leaves both or neither once it is back.
 */

const temp = makeTempDir();
const env = { PETSTORE_DATA_DIR: temp.dir };
const key = createApiKey(env);
const auth = { authorization: `Bearer ${key}` };
const servers: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill('SIGKILL')));
  temp.remove();
});

async function start(extra: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ ...env, ...extra });
  servers.push(server);
  return server;
}

async function send(server: ServerProcess, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Sends a request to a server armed to kill itself mid-append; resolves once it has died. */
async function crashOn(server: ServerProcess, path: string, body?: unknown): Promise<void> {
  const died = once(server.child, 'exit');
  await expect(send(server, 'POST', path, body)).rejects.toThrow(TypeError);
  const [, signal] = await died;
  expect(signal).toBe('SIGKILL');
}

async function newPet(server: ServerProcess): Promise<number> {
  return (await send(server, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1, status: 'available' })).body
    .id as number;
}

describe('a crash between the two streams of an order decision', () => {
  it('leaves no order without its pet change when placing', async () => {
    const setup = await start();
    const petId = await newPet(setup);
    await setup.kill();
    await crashOn(await start({ PETSTORE_FAILPOINT: 'kill-between-streams' }), '/v1/store/orders', { petId });
    const back = await start();
    expect((await send(back, 'GET', '/v1/store/orders?limit=100')).body).toEqual([]);
    expect((await send(back, 'GET', `/v1/pets/${petId}`)).body.status).toBe('available');
    expect((await send(back, 'POST', '/v1/store/orders', { petId })).status).toBe(201);
    await back.kill();
  });

  it.each([
    ['completing', 'complete'],
    ['cancelling', 'cancel'],
  ])('leaves the order placed and its pet pending when %s', async (_doing, action) => {
    const setup = await start();
    const petId = await newPet(setup);
    const order = (await send(setup, 'POST', '/v1/store/orders', { petId })).body;
    await setup.kill();
    await crashOn(
      await start({ PETSTORE_FAILPOINT: 'kill-between-streams' }),
      `/v1/store/orders/${order.id}/${action}`,
    );
    const back = await start();
    expect((await send(back, 'GET', `/v1/store/orders/${order.id}`)).body.status).toBe('placed');
    expect((await send(back, 'GET', `/v1/pets/${petId}`)).body.status).toBe('pending');
    expect((await send(back, 'POST', `/v1/store/orders/${order.id}/${action}`)).status).toBe(200);
    await back.kill();
  });
});

describe('SIGKILL at any moment while orders are placed, completed and cancelled', () => {
  it('leaves every order event with its pet change and every pet change of an order with its order event', async () => {
    for (let round = 0; round < 3; round++) {
      const server = await start();
      const petIds = await Promise.all(Array.from({ length: 40 }, () => newPet(server)));
      const busy = Promise.all(
        petIds.map(async (petId, i) => {
          try {
            const order = await send(server, 'POST', '/v1/store/orders', { petId });
            await send(
              server,
              'POST',
              `/v1/store/orders/${order.body.id}/${i % 2 === 0 ? 'complete' : 'cancel'}`,
            );
          } catch (error) {
            if (!(error instanceof TypeError)) throw error; // the server died under the request
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 40));
      await server.kill('SIGKILL');
      await busy;
    }
    const { unmatched, orderEvents } = await orderEventsAndTheirPetChanges();
    expect(orderEvents).toBeGreaterThan(0);
    expect(unmatched).toEqual([]);
  });
});

/** Order events without the pet change that goes with them, and the reverse, over the whole store. */
async function orderEventsAndTheirPetChanges(): Promise<{ unmatched: string[]; orderEvents: number }> {
  const store = openSqliteEventStore({ file: `${temp.dir}/events.sqlite` });
  const orderSide = new Set<string>();
  const petSide = new Set<string>();
  const PET_STATUS_OF = { OrderPlaced: 'pending', OrderCompleted: 'sold', OrderCancelled: 'available' };
  try {
    for await (const event of store.readAll()) {
      if (event.type in PET_STATUS_OF) {
        const id = `${event.data.orderId}:${PET_STATUS_OF[event.type as keyof typeof PET_STATUS_OF]}`;
        orderSide.add(id);
      } else if (event.type === 'PetStatusChanged' && event.data.orderId !== undefined) {
        petSide.add(`${event.data.orderId}:${event.data.status}`);
      }
    }
  } finally {
    await store.close();
  }
  const unmatched = [...orderSide].filter((id) => !petSide.has(id)).map((id) => `order ${id}`);
  unmatched.push(...[...petSide].filter((id) => !orderSide.has(id)).map((id) => `pet change ${id}`));
  return { unmatched, orderEvents: orderSide.size };
}
