import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { openApiMismatches } from '../../support/openapi.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Order = { id: number; petId: number; status: string; placedAt: string };

async function send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers = {}) {
  return t.app.inject({
    method,
    url,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function availablePet(status = 'available'): Promise<number> {
  return (await send('POST', '/v1/pets', { name: 'Rex', categoryId: 1, status })).json().id as number;
}

async function placed(petId: number): Promise<Order> {
  return (await send('POST', '/v1/store/orders', { petId })).json() as Order;
}

const petStatus = async (petId: number) => (await send('GET', `/v1/pets/${petId}`)).json().status as string;
const streamTypes = async (stream: string) => (await t.store.readStream(stream)).map((event) => event.type);

describe('POST /v1/store/orders', () => {
  it('places an order: 201 with the order, its Location and ETag, and the pet becomes pending', async () => {
    const petId = await availablePet();
    const response = await send('POST', '/v1/store/orders', { petId, note: 'gift wrap' });
    expect(response.statusCode).toBe(201);
    const order = response.json();
    expect(order).toEqual({
      id: expect.any(Number),
      petId,
      status: 'placed',
      placedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      note: 'gift wrap',
    });
    expect([response.headers.location, response.headers.etag]).toEqual([
      `/v1/store/orders/${order.id}`,
      '"0"',
    ]);
    expect(openApiMismatches('POST', '/store/orders', response)).toEqual([]);
    expect(await petStatus(petId)).toBe('pending');
  });

  it('records the order and the pet’s change together, the pet’s naming the order', async () => {
    const petId = await availablePet();
    const order = await placed(petId);
    expect(await streamTypes(`order-${order.id}`)).toEqual(['OrderPlaced']);
    const [, change] = await t.store.readStream(`pet-${petId}`);
    expect(change?.data).toEqual({
      id: petId,
      status: 'pending',
      previousStatus: 'available',
      orderId: order.id,
    });
  });

  it.each([['pending'], ['sold']])(
    'answers 409 pet_not_available for a %s pet, and records nothing',
    async (status) => {
      const petId = await availablePet(status);
      const response = await send('POST', '/v1/store/orders', { petId });
      expect(response.json()).toEqual({
        code: 'pet_not_available',
        message: `Pet ${petId} is ${status}, not available: it cannot be ordered.`,
        status: 409,
      });
      expect(await streamTypes(`pet-${petId}`)).toEqual(['PetCreated']);
    },
  );

  it('answers 409 for a pet an order already holds', async () => {
    const petId = await availablePet();
    await placed(petId);
    expect((await send('POST', '/v1/store/orders', { petId })).json().code).toBe('pet_not_available');
  });

  it('answers 404 not_found for an unknown pet, and 404 pet_removed for a removed one', async () => {
    expect((await send('POST', '/v1/store/orders', { petId: 987654321 })).json().code).toBe('not_found');
    const petId = await availablePet();
    await send('DELETE', `/v1/pets/${petId}`);
    expect((await send('POST', '/v1/store/orders', { petId })).json().code).toBe('pet_removed');
  });

  it.each([
    [{}, 'petId is required: a pet id from 1 to 9007199254740991.'],
    [{ petId: '1' }, 'petId must be a pet id from 1 to 9007199254740991, as a number.'],
    [{ petId: 0 }, 'petId must be a pet id from 1 to 9007199254740991, as a number.'],
    [{ petId: 1, quantity: 2 }, 'Field quantity cannot be set; an order accepts petId and note.'],
    [{ petId: 1, note: 'x'.repeat(501) }, 'note must be at most 500 characters.'],
  ])('answers %j with 400 and the rule it broke', async (body, message) => {
    expect((await send('POST', '/v1/store/orders', body)).json()).toEqual({
      code: 'validation_failed',
      message,
      status: 400,
    });
  });
});

describe('completing and cancelling', () => {
  it('completes an order: the order completed, the pet sold, both recorded together', async () => {
    const petId = await availablePet();
    const order = await placed(petId);
    const response = await send('POST', `/v1/store/orders/${order.id}/complete`);
    expect(response.json()).toEqual({ ...order, status: 'completed', completedAt: expect.any(String) });
    expect(response.headers.etag).toBe('"1"');
    expect(openApiMismatches('POST', '/store/orders/{orderId}/complete', response)).toEqual([]);
    expect(await petStatus(petId)).toBe('sold');
    expect(await streamTypes(`order-${order.id}`)).toEqual(['OrderPlaced', 'OrderCompleted']);
  });

  it('refuses a complete whose body holds a field with 400 validation_failed, and records nothing', async () => {
    const order = await placed(await availablePet());
    const response = await send('POST', `/v1/store/orders/${order.id}/complete`, { reason: 'paid' });
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: 'Field reason cannot be set; completing an order takes no fields.',
      status: 400,
    });
    expect(await streamTypes(`order-${order.id}`)).toEqual(['OrderPlaced']);
  });

  it('refuses a complete whose body is not JSON with 415, as the document says, and records nothing', async () => {
    const order = await placed(await availablePet());
    const response = await send('POST', `/v1/store/orders/${order.id}/complete`, 'paid', {
      'content-type': 'text/plain',
    });
    expect([response.statusCode, response.json().code]).toEqual([415, 'unsupported_media_type']);
    expect(openApiMismatches('POST', '/store/orders/{orderId}/complete', response)).toEqual([]);
    expect(await streamTypes(`order-${order.id}`)).toEqual(['OrderPlaced']);
  });

  it('completes an order sent with an empty JSON object as its body', async () => {
    const order = await placed(await availablePet());
    expect((await send('POST', `/v1/store/orders/${order.id}/complete`, {})).statusCode).toBe(200);
  });

  it.each([
    ['complete', 'completed'],
    ['cancel', 'cancelled'],
  ])(
    'answers a %s sent with Content-Type: application/json and no body, as a generated client sends a body left out',
    async (verb, status) => {
      const order = await placed(await availablePet());
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/store/orders/${order.id}/${verb}`,
        headers: { 'content-type': 'application/json', 'content-length': '0' },
      });
      expect([response.statusCode, response.json().status]).toEqual([200, status]);
      expect(openApiMismatches('POST', `/store/orders/{orderId}/${verb}`, response)).toEqual([]);
    },
  );

  it('refuses a cancel sent with Content-Type: text/plain and no body with 415, as the README says', async () => {
    const order = await placed(await availablePet());
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/store/orders/${order.id}/cancel`,
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'content-length': '0' },
    });
    expect([response.statusCode, response.json().code]).toEqual([415, 'unsupported_media_type']);
  });

  it.each(['complete', 'cancel'])(
    'refuses a %s whose body is null with 400, as its schema is an object',
    async (verb) => {
      const order = await placed(await availablePet());
      const response = await send('POST', `/v1/store/orders/${order.id}/${verb}`, null);
      expect([response.statusCode, response.json().code]).toEqual([400, 'validation_failed']);
      expect(await streamTypes(`order-${order.id}`)).toEqual(['OrderPlaced']);
    },
  );

  it('refuses a cancel with its reason in the query with 400 naming it, and records nothing', async () => {
    const order = await placed(await availablePet());
    const response = await send('POST', `/v1/store/orders/${order.id}/cancel?reason=changed%20my%20mind`);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message:
        'Query parameter reason cannot be set; a cancellation takes none (a reason goes in the body: {"reason": "…"}).',
      status: 400,
    });
    expect(await streamTypes(`order-${order.id}`)).toEqual(['OrderPlaced']);
  });

  it('cancels an order with a reason: the pet is available again', async () => {
    const petId = await availablePet();
    const order = await placed(petId);
    const response = await send('POST', `/v1/store/orders/${order.id}/cancel`, { reason: 'changed my mind' });
    expect(response.json()).toEqual({
      ...order,
      status: 'cancelled',
      cancelledAt: expect.any(String),
      cancelReason: 'changed my mind',
    });
    expect(await petStatus(petId)).toBe('available');
  });

  it.each([
    ['complete', 'cancel', 'completed', 'cancel'],
    ['cancel', 'complete', 'cancelled', 'complete'],
    ['cancel', 'cancel', 'cancelled', 'cancel'],
    ['complete', 'complete', 'completed', 'complete'],
  ])(
    'answers %s then %s with 409 invalid_order_transition, and records nothing more',
    async (first, second, status, verb) => {
      const order = await placed(await availablePet());
      await send('POST', `/v1/store/orders/${order.id}/${first}`);
      const response = await send('POST', `/v1/store/orders/${order.id}/${second}`);
      expect(response.json()).toEqual({
        code: 'invalid_order_transition',
        message: `Order ${order.id} is ${status}: it cannot ${verb} any more.`,
        status: 409,
      });
      expect(await streamTypes(`order-${order.id}`)).toHaveLength(2);
    },
  );

  it('answers a stale If-Match with 412, and records nothing', async () => {
    const order = await placed(await availablePet());
    const response = await send('POST', `/v1/store/orders/${order.id}/complete`, undefined, {
      'if-match': '"5"',
    });
    expect([response.statusCode, response.json().code]).toEqual([412, 'precondition_failed']);
    expect(await streamTypes(`order-${order.id}`)).toEqual(['OrderPlaced']);
  });

  it("answers a cancel whose If-None-Match names the order's version with 412, and records nothing", async () => {
    const order = await placed(await availablePet());
    const response = await send('POST', `/v1/store/orders/${order.id}/cancel`, undefined, {
      'if-none-match': '"0"',
    });
    expect(response.json()).toEqual({
      code: 'precondition_failed',
      message: `Order ${order.id} is at version 0, which If-None-Match names: nothing was changed.`,
      status: 412,
    });
    expect(await streamTypes(`order-${order.id}`)).toEqual(['OrderPlaced']);
  });

  it('answers 404 not_found for an unknown order', async () => {
    expect((await send('POST', '/v1/store/orders/987654321/cancel')).json().code).toBe('not_found');
  });
});

describe('a pet an order holds', () => {
  it('refuses a status change or a removal with 409 pet_held_by_order, but may be renamed', async () => {
    const petId = await availablePet();
    const order = await placed(petId);
    const change = await send('PATCH', `/v1/pets/${petId}`, { status: 'available' });
    expect(change.json()).toEqual({
      code: 'pet_held_by_order',
      message: `Pet ${petId} is held by order ${order.id}: complete or cancel the order to change its status or remove it.`,
      status: 409,
    });
    expect((await send('DELETE', `/v1/pets/${petId}`)).json().code).toBe('pet_held_by_order');
    expect((await send('PATCH', `/v1/pets/${petId}`, { name: 'Renamed' })).statusCode).toBe(200);
  });

  it('is free again once its order is cancelled', async () => {
    const petId = await availablePet();
    const order = await placed(petId);
    await send('POST', `/v1/store/orders/${order.id}/cancel`);
    expect((await send('PATCH', `/v1/pets/${petId}`, { status: 'sold' })).statusCode).toBe(200);
  });
});

describe('reading orders and the inventory', () => {
  it('reads one order with its ETag, and answers 304 while If-None-Match holds', async () => {
    const order = await placed(await availablePet());
    const response = await send('GET', `/v1/store/orders/${order.id}`);
    expect([response.json(), response.headers.etag]).toEqual([order, '"0"']);
    const unchanged = await send('GET', `/v1/store/orders/${order.id}`, undefined, {
      'if-none-match': '"0"',
    });
    expect(unchanged.statusCode).toBe(304);
  });

  it('answers a read of an order with 412 when If-Match names another version', async () => {
    const order = await placed(await availablePet());
    await send('POST', `/v1/store/orders/${order.id}/complete`);
    const response = await send('GET', `/v1/store/orders/${order.id}`, undefined, { 'if-match': '"0"' });
    expect(response.json()).toEqual({
      code: 'precondition_failed',
      message: `Order ${order.id} is at version 1, not 0: read it without If-Match to get it.`,
      status: 412,
    });
    expect(openApiMismatches('GET', '/store/orders/{orderId}', response)).toEqual([]);
  });

  it('pages through orders in the order they were placed, with the Link header and a status filter', async () => {
    const orders = [await placed(await availablePet()), await placed(await availablePet())];
    await send('POST', `/v1/store/orders/${orders[1]!.id}/complete`);
    const first = await send('GET', `/v1/store/orders?limit=1&after=${orders[0]!.id - 1}`);
    expect(first.json()).toEqual([orders[0]]);
    expect(first.headers.link).toBe(`</v1/store/orders?limit=1&after=${orders[0]!.id}>; rel="next"`);
    const completed = (await send('GET', '/v1/store/orders?status=completed&limit=100')).json() as Order[];
    expect(completed.map((order) => order.id)).toContain(orders[1]!.id);
    expect(completed.map((order) => order.id)).not.toContain(orders[0]!.id);
    expect(openApiMismatches('GET', '/store/orders', first)).toEqual([]);
  });

  it('answers an unknown status filter with 400', async () => {
    expect((await send('GET', '/v1/store/orders?status=lost')).json().message).toBe(
      'status must be one of placed, completed, cancelled.',
    );
  });

  it('counts pets by status, exact after each write', async () => {
    const before = (await send('GET', '/v1/store/inventory')).json();
    const petId = await availablePet();
    const order = await placed(petId);
    await send('POST', `/v1/store/orders/${order.id}/complete`);
    const after = await send('GET', '/v1/store/inventory');
    expect(after.json()).toEqual({ ...before, sold: before.sold + 1 });
    expect(openApiMismatches('GET', '/store/inventory', after)).toEqual([]);
  });
});

describe('asOf on reads that answer only the present', () => {
  it('refuses asOf on the order list with 400 naming it, rather than list the orders as they are now', async () => {
    const response = await send('GET', '/v1/store/orders?asOf=2030-01-14T09:00:00Z');
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message:
        "Query parameter asOf cannot be set: orders are listed only as they are now; GET /v1/store/orders/{orderId}/history gives an order's past.",
      status: 400,
    });
    expect(openApiMismatches('GET', '/store/orders', response)).toEqual([]);
  });

  it('refuses asOf on one order with 400 naming it and the order’s history', async () => {
    const order = await placed(await availablePet());
    const response = await send('GET', `/v1/store/orders/${order.id}?asOf=1`);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: `Query parameter asOf cannot be set: an order is read only as it is now; GET /v1/store/orders/${order.id}/history gives its past.`,
      status: 400,
    });
    expect(openApiMismatches('GET', '/store/orders/{orderId}', response)).toEqual([]);
  });

  it('refuses asOf on the inventory with 400 naming it and the catalogue’s past', async () => {
    const response = await send('GET', '/v1/store/inventory?asOf=2030-01-14T09:00:00Z');
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message:
        'Query parameter asOf cannot be set: the inventory counts pets only as they are now; GET /v1/pets?asOf=… lists the catalogue as it was.',
      status: 400,
    });
    expect(openApiMismatches('GET', '/store/inventory', response)).toEqual([]);
  });
});

describe('Idempotency-Key on orders', () => {
  it('answers a retry with the first order, placing nothing', async () => {
    const petId = await availablePet();
    const first = await send('POST', '/v1/store/orders', { petId }, { 'idempotency-key': `order-${petId}` });
    const retry = await send('POST', '/v1/store/orders', { petId }, { 'idempotency-key': `order-${petId}` });
    expect([retry.statusCode, retry.json(), retry.headers['idempotent-replayed']]).toEqual([
      201,
      first.json(),
      'true',
    ]);
  });

  it('refuses the key of a pet creation with 422', async () => {
    const key = `shared-${Math.random()}`;
    await send('POST', '/v1/pets', { name: 'Rex', categoryId: 1 }, { 'idempotency-key': key });
    const petId = await availablePet();
    const response = await send('POST', '/v1/store/orders', { petId }, { 'idempotency-key': key });
    expect([response.statusCode, response.json().code]).toEqual([422, 'idempotency_key_reused']);
  });
});
