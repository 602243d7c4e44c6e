import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeApiKeyScopes, revokeApiKey } from '../../../src/application/commands/api-keys.ts';
import { systemClock } from '../../../src/shared/context.ts';
import { type ListeningApp, startListeningApp } from '../../support/listening-app.ts';
import { schemaMismatches } from '../../support/openapi.ts';
import { readSse } from '../../support/sse.ts';

/**
 * GET /v1/pets/changes and GET /v1/store/orders/changes: GraphQL's petChanged, petCreated and
 * orderChanged as server-sent events, for REST clients with the scopes those subscriptions need.
 */

let server: ListeningApp;
type Key = { authorization: string; keyId: string };
let shop: Key;
let buyer: Key;
beforeAll(async () => {
  server = await startListeningApp();
  shop = await server.issueKey(['pets:read', 'pets:write'], 'shop');
  buyer = await server.issueKey(['pets:read', 'orders:read', 'orders:write'], 'buyer');
});
afterAll(() => server.close());

async function send(key: Key, method: string, url: string, body?: unknown, contentType = 'application/json') {
  const response = await fetch(`${server.origin}${url}`, {
    method,
    headers: { authorization: key.authorization, ...(body !== undefined && { 'content-type': contentType }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return response.status === 204 ? undefined : ((await response.json()) as { id: number });
}

const createPet = (name = `Pet ${randomUUID().slice(0, 8)}`) =>
  send(shop, 'POST', '/v1/pets', { name, categoryId: 2, status: 'available' }) as Promise<{ id: number }>;
const rename = (id: number, name: string) =>
  send(shop, 'PATCH', `/v1/pets/${id}`, { name }, 'application/merge-patch+json');
const placeOrder = (key: Key, petId: number) =>
  send(key, 'POST', '/v1/store/orders', { petId }) as Promise<{ id: number }>;

const head = async () => String(await server.testApp.store.headPosition());
const positionsOf = async (stream: string) =>
  (await server.testApp.store.readStream(stream)).map((event) => String(event.position));

describe('GET /v1/pets/changes', () => {
  it('streams each pet created, changed and removed, as petChanged shows them, each with its position as id', async () => {
    let id = 0;
    const events = await readSse(
      `${server.origin}/v1/pets/changes`,
      { authorization: shop.authorization },
      3,
      async () => {
        id = (await createPet('Rex')).id;
        await rename(id, 'Max');
        await send(shop, 'DELETE', `/v1/pets/${id}`);
      },
    );
    const [created, renamed, removed] = await positionsOf(`pet-${id}`);
    expect(events).toEqual([
      {
        id: created,
        data: {
          type: 'created',
          id,
          version: 0,
          pet: { id, name: 'Rex', categoryId: 2, status: 'available' },
        },
      },
      {
        id: renamed,
        data: {
          type: 'updated',
          id,
          version: 1,
          pet: { id, name: 'Max', categoryId: 2, status: 'available' },
        },
      },
      { id: removed, data: { type: 'removed', id, version: 2, pet: null } },
    ]);
  });

  it('sends each change as the PetChange of the OpenAPI document', async () => {
    const events = await readSse(
      `${server.origin}/v1/pets/changes`,
      { authorization: shop.authorization },
      2,
      async () => {
        const { id } = await createPet();
        await send(shop, 'DELETE', `/v1/pets/${id}`);
      },
    );
    expect(events.flatMap((event) => schemaMismatches('PetChange', event.data))).toEqual([]);
  });

  it('streams only the creations with type=created, as petCreated does', async () => {
    const pets: number[] = [];
    const events = await readSse(
      `${server.origin}/v1/pets/changes?type=created`,
      { authorization: shop.authorization },
      2,
      async () => {
        pets.push((await createPet()).id);
        await rename(pets[0]!, 'Renamed');
        pets.push((await createPet()).id);
      },
    );
    expect(events.map((event) => event.data)).toEqual(
      pets.map((id) => expect.objectContaining({ type: 'created', id })),
    );
  });

  it('resumes after Last-Event-ID with the changes made meanwhile first, no gap and no repeat, then live ones', async () => {
    const { id } = await createPet('Before');
    const [createdAt] = await positionsOf(`pet-${id}`);
    await rename(id, 'Meanwhile 1');
    await rename(id, 'Meanwhile 2');
    const events = await readSse(
      `${server.origin}/v1/pets/changes`,
      { authorization: shop.authorization, 'last-event-id': createdAt! },
      3,
      () => rename(id, 'Live').then(() => undefined),
    );
    expect(events.map((event) => [event.id, (event.data as { pet: { name: string } }).pet.name])).toEqual([
      ...(await positionsOf(`pet-${id}`))
        .slice(1)
        .map((position, i) => [position, ['Meanwhile 1', 'Meanwhile 2', 'Live'][i]]),
    ]);
  });

  it('ends the stream once its key is revoked, as the audit feed does', async () => {
    const reader = await server.issueKey(['pets:read'], 'reader');
    const revoked = readSse(
      `${server.origin}/v1/pets/changes`,
      { authorization: reader.authorization },
      1,
      async () => {
        const change = await revokeApiKey({ store: server.testApp.store, clock: systemClock }, reader.keyId, {
          correlationId: randomUUID(),
        });
        await server.testApp.service.auth.keys.waitFor(change.position!);
      },
    );
    expect(await revoked).toEqual([]);
  });

  it.each([
    ['an Accept without text/event-stream', '', { accept: 'application/json' }, 406, 'not_acceptable'],
    ['an unknown type', '?type=renamed', {}, 400, 'validation_failed'],
    ['asOf', '?asOf=2026-01-01T00:00:00Z', {}, 400, 'validation_failed'],
  ])('refuses %s with %i before anything of a stream starts', async (_what, query, headers, status, code) => {
    const response = await fetch(`${server.origin}/v1/pets/changes${query}`, {
      headers: { authorization: shop.authorization, ...headers },
    });
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([status, code]);
  });

  it('refuses a Last-Event-ID past the store’s last event, naming it', async () => {
    const past = String(BigInt(await head()) + 1000n);
    const response = await fetch(`${server.origin}/v1/pets/changes`, {
      headers: { authorization: shop.authorization, 'last-event-id': past },
    });
    expect([response.status, await response.json()]).toEqual([
      400,
      {
        code: 'validation_failed',
        message: `Last-Event-ID ${past} is past the store's last event (${await head()}): only send positions this service gave.`,
        status: 400,
      },
    ]);
  });

  it('refuses a Last-Event-ID sent twice as sent twice, not as a position that is not one', async () => {
    // fetch joins a repeated header itself: node:http sends each line as given.
    const answer = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const sent = request(`${server.origin}/v1/pets/changes`, {
        headers: { authorization: shop.authorization, 'last-event-id': ['5', '6'] },
      });
      sent.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
      });
      sent.on('error', reject);
      sent.end();
    });
    expect(answer).toEqual({
      status: 400,
      body: { code: 'validation_failed', message: 'Last-Event-ID must be sent at most once.', status: 400 },
    });
  });

  it('refuses an after that is not a position even beside a Last-Event-ID, which wins only over a good one', async () => {
    const response = await fetch(`${server.origin}/v1/pets/changes?after=abc`, {
      headers: { authorization: shop.authorization, 'last-event-id': '1' },
    });
    expect([response.status, await response.json()]).toEqual([
      400,
      { code: 'validation_failed', message: 'after must be a store position: decimal digits.', status: 400 },
    ]);
  });

  it('needs pets:read, as petChanged does', async () => {
    const orders = await server.issueKey(['orders:read'], 'orders only');
    const response = await fetch(`${server.origin}/v1/pets/changes`, {
      headers: { authorization: orders.authorization },
    });
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([
      403,
      'insufficient_scope',
    ]);
  });

  it('answers other methods with 405 rather than taking changes for a pet id', async () => {
    const response = await fetch(`${server.origin}/v1/pets/changes`, {
      method: 'PATCH',
      headers: { authorization: shop.authorization, 'content-type': 'application/merge-patch+json' },
      body: '{"name":"Rex"}',
    });
    expect([response.status, response.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });
});

describe('GET /v1/store/orders/changes', () => {
  it('streams the key’s own orders as they are placed and completed, not another key’s, as orderChanged does', async () => {
    const other = await server.issueKey(['orders:write'], 'other buyer');
    const [mine, theirs] = [await createPet(), await createPet()];
    let order = { id: 0 };
    const events = await readSse(
      `${server.origin}/v1/store/orders/changes`,
      { authorization: buyer.authorization },
      2,
      async () => {
        await placeOrder(other, theirs.id);
        order = await placeOrder(buyer, mine.id);
        await send(buyer, 'POST', `/v1/store/orders/${order.id}/complete`);
      },
    );
    const [placed, completed] = await positionsOf(`order-${order.id}`);
    expect(events).toEqual([
      {
        id: placed,
        data: {
          id: order.id,
          version: 0,
          order: expect.objectContaining({
            id: order.id,
            petId: mine.id,
            status: 'placed',
            placedBy: buyer.keyId,
          }),
        },
      },
      {
        id: completed,
        data: {
          id: order.id,
          version: 1,
          order: expect.objectContaining({ id: order.id, status: 'completed' }),
        },
      },
    ]);
  });

  it('sends each change as the OrderChange of the OpenAPI document', async () => {
    const { id } = await createPet();
    const events = await readSse(
      `${server.origin}/v1/store/orders/changes`,
      { authorization: buyer.authorization },
      2,
      async () => {
        const order = await placeOrder(buyer, id);
        await send(buyer, 'POST', `/v1/store/orders/${order.id}/cancel`, { reason: 'changed my mind' });
      },
    );
    expect(events.flatMap((event) => schemaMismatches('OrderChange', event.data))).toEqual([]);
  });

  it('resumes after a position, each order as it was right after its change', async () => {
    const from = await head();
    const order = await placeOrder(buyer, (await createPet()).id);
    await send(buyer, 'POST', `/v1/store/orders/${order.id}/cancel`);
    const events = await readSse(
      `${server.origin}/v1/store/orders/changes?after=${from}`,
      { authorization: buyer.authorization },
      2,
    );
    expect(
      events.map((event) => [event.id, (event.data as { order: { status: string } }).order.status]),
    ).toEqual([
      [(await positionsOf(`order-${order.id}`))[0], 'placed'],
      [(await positionsOf(`order-${order.id}`))[1], 'cancelled'],
    ]);
  });

  it('ends an admin key’s stream, which carries every order, once the key loses admin', async () => {
    const admin = await server.issueKey(['orders:read', 'admin'], 'admin');
    const ended = readSse(
      `${server.origin}/v1/store/orders/changes`,
      { authorization: admin.authorization },
      1,
      async () => {
        const change = await changeApiKeyScopes(
          { store: server.testApp.store, clock: systemClock },
          admin.keyId,
          ['orders:read'],
          { correlationId: randomUUID() },
        );
        await server.testApp.service.auth.keys.waitFor(change.position!);
        await placeOrder(buyer, (await createPet()).id);
      },
    );
    expect(await ended).toEqual([]);
  });

  it('needs orders:read, as orderChanged does', async () => {
    const response = await fetch(`${server.origin}/v1/store/orders/changes`, {
      headers: { authorization: shop.authorization },
    });
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([
      403,
      'insufficient_scope',
    ]);
  });
});
