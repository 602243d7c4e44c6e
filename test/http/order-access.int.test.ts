import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../support/guarded-app.ts';

/** OWASP API1: a key sees and changes only the orders it placed; an admin key sees them all. */

let service: GuardedApp;
let alice: string;
let bob: string;
let admin: string;
let reader: string;
beforeAll(async () => {
  service = await startGuardedApp({ clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)) });
  const enterprise = { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 } as const;
  alice = (await service.issueKey(enterprise)).secret;
  bob = (await service.issueKey(enterprise)).secret;
  admin = (await service.issueKey({ ...enterprise, scopes: ['admin'] })).secret;
  reader = (await service.issueKey({ ...enterprise, scopes: ['pets:read', 'orders:read'] })).secret;
});
afterAll(() => service.close());

async function orderBy(secret: string): Promise<{ id: number; petId: number }> {
  const pet = (
    await service.send(secret, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1, status: 'available' })
  ).json();
  return (await service.send(secret, 'POST', '/v1/store/orders', { petId: pet.id })).json();
}

describe('orders of another key', () => {
  it('answer 404 not_found to a read, exactly as an id no order has', async () => {
    const order = await orderBy(alice);
    const theirs = await service.send(bob, 'GET', `/v1/store/orders/${order.id}`);
    const none = await service.send(bob, 'GET', '/v1/store/orders/987654321');
    expect(theirs.json()).toEqual({
      code: 'not_found',
      message: `No order has the id ${order.id}.`,
      status: 404,
    });
    expect(none.json()).toEqual({
      code: 'not_found',
      message: 'No order has the id 987654321.',
      status: 404,
    });
  });

  it('answer 404 to a completion or cancellation, and stay as they are', async () => {
    const order = await orderBy(alice);
    expect((await service.send(bob, 'POST', `/v1/store/orders/${order.id}/complete`)).statusCode).toBe(404);
    expect((await service.send(bob, 'POST', `/v1/store/orders/${order.id}/cancel`)).statusCode).toBe(404);
    expect((await service.send(alice, 'GET', `/v1/store/orders/${order.id}`)).json().status).toBe('placed');
  });

  it('are not in the list of a key that did not place them', async () => {
    const order = await orderBy(alice);
    const own = await orderBy(bob);
    const ids = (
      (await service.send(bob, 'GET', '/v1/store/orders?limit=100')).json() as { id: number }[]
    ).map((o) => o.id);
    expect(ids).toContain(own.id);
    expect(ids).not.toContain(order.id);
  });
});

describe('an admin key', () => {
  it('lists, reads and completes every key’s orders', async () => {
    const order = await orderBy(alice);
    const ids = (
      (await service.send(admin, 'GET', '/v1/store/orders?limit=100')).json() as { id: number }[]
    ).map((o) => o.id);
    expect(ids).toContain(order.id);
    expect((await service.send(admin, 'GET', `/v1/store/orders/${order.id}`)).statusCode).toBe(200);
    expect((await service.send(admin, 'POST', `/v1/store/orders/${order.id}/complete`)).json().status).toBe(
      'completed',
    );
  });
});

describe('order scopes', () => {
  it('answers a key without orders:write with 403 when it places an order', async () => {
    const pet = (
      await service.send(alice, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1, status: 'available' })
    ).json();
    const response = await service.send(reader, 'POST', '/v1/store/orders', { petId: pet.id });
    expect([response.statusCode, response.json().code, response.headers['www-authenticate']]).toEqual([
      403,
      'insufficient_scope',
      'Bearer realm="petstore", error="insufficient_scope", scope="orders:write"',
    ]);
  });

  it('lets a key with orders:read list its orders (none) and read the inventory', async () => {
    expect((await service.send(reader, 'GET', '/v1/store/orders')).json()).toEqual([]);
    expect((await service.send(reader, 'GET', '/v1/store/inventory')).statusCode).toBe(200);
  });
});
