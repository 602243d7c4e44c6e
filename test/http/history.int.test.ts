import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../support/guarded-app.ts';
import { openApiMismatches } from '../support/openapi.ts';

/** "Who changed this pet, when, from what?": histories, REST and GraphQL, for auditors. */

const START = Date.UTC(2030, 0, 15, 10, 0, 5);
let service: GuardedApp;
let shop: { secret: string; keyId: string };
let auditor: string;
beforeAll(async () => {
  service = await startGuardedApp({ clock: controlledClock(START) });
  const limits = { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 } as const;
  shop = await service.issueKey({ ...limits, name: 'shop' });
  auditor = (await service.issueKey({ ...limits, name: 'auditor', scopes: ['audit:read', 'pets:read'] }))
    .secret;
});
afterAll(() => service.close());

async function petWithAPast(): Promise<number> {
  const id = (
    await service.send(
      shop.secret,
      'POST',
      '/v1/pets',
      { name: 'Rex', categoryId: 1, status: 'available' },
      { 'x-request-id': 'req-create' },
    )
  ).json().id as number;
  await service.send(
    shop.secret,
    'PATCH',
    `/v1/pets/${id}`,
    { name: 'Max', status: 'pending' },
    { 'x-request-id': 'req-change' },
  );
  await service.send(shop.secret, 'DELETE', `/v1/pets/${id}?reason=adopted`, undefined, {
    'x-request-id': 'req-remove',
  });
  return id;
}

describe('GET /v1/pets/{petId}/history', () => {
  it('answers every event oldest first: position, revision, type, time, who, which request, and the data', async () => {
    const id = await petWithAPast();
    const response = await service.send(auditor, 'GET', `/v1/pets/${id}/history`);
    const actor = { keyId: shop.keyId, name: 'shop' };
    const time = new Date(START).toISOString();
    expect(response.json()).toEqual([
      {
        position: expect.stringMatching(/^\d+$/),
        revision: 0,
        type: 'PetCreated',
        time,
        actor,
        requestId: 'req-create',
        data: { id, name: 'Rex', categoryId: 1, status: 'available' },
      },
      {
        position: expect.stringMatching(/^\d+$/),
        revision: 1,
        type: 'PetRenamed',
        time,
        actor,
        requestId: 'req-change',
        data: { id, name: 'Max', previousName: 'Rex' },
      },
      {
        position: expect.stringMatching(/^\d+$/),
        revision: 2,
        type: 'PetStatusChanged',
        time,
        actor,
        requestId: 'req-change',
        data: { id, status: 'pending', previousStatus: 'available' },
      },
      {
        position: expect.stringMatching(/^\d+$/),
        revision: 3,
        type: 'PetRemoved',
        time,
        actor,
        requestId: 'req-remove',
        data: { id, reason: 'adopted' },
      },
    ]);
    const positions = (response.json() as { position: string }[]).map((event) => BigInt(event.position));
    expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : 1)));
    expect(openApiMismatches('GET', '/pets/{petId}/history', response)).toEqual([]);
  });

  it('pages with limit and the Link header, like the lists', async () => {
    const id = await petWithAPast();
    const first = await service.send(auditor, 'GET', `/v1/pets/${id}/history?limit=3`);
    expect((first.json() as unknown[]).length).toBe(3);
    expect(first.headers.link).toBe(`</v1/pets/${id}/history?limit=3&after=2>; rel="next"`);
    const rest = await service.send(auditor, 'GET', `/v1/pets/${id}/history?limit=3&after=2`);
    expect((rest.json() as { type: string }[]).map((event) => event.type)).toEqual(['PetRemoved']);
    expect(rest.headers.link).toBeUndefined();
  });

  it('keeps only limit in its Link: a parameter it tolerates cannot add a link of its own', async () => {
    const id = await petWithAPast();
    const status = encodeURIComponent('x>; rel="next", <https://evil.example/steal');
    const response = await service.send(auditor, 'GET', `/v1/pets/${id}/history?limit=3&status=${status}`);
    expect(response.headers.link).toBe(`</v1/pets/${id}/history?limit=3&after=2>; rel="next"`);
  });

  it('answers a page, not a 500, when a parameter it tolerates holds a line break', async () => {
    const id = await petWithAPast();
    const response = await service.send(
      auditor,
      'GET',
      `/v1/pets/${id}/history?limit=3&status=a%0D%0AX-Evil:%201`,
    );
    expect([response.statusCode, response.headers.link]).toEqual([
      200,
      `</v1/pets/${id}/history?limit=3&after=2>; rel="next"`,
    ]);
  });

  it('answers 404 not_found for a pet that never existed', async () => {
    expect((await service.send(auditor, 'GET', '/v1/pets/987654321/history')).json().code).toBe('not_found');
  });

  it('answers a key without audit:read with 403 insufficient_scope', async () => {
    const id = await petWithAPast();
    const response = await service.send(shop.secret, 'GET', `/v1/pets/${id}/history`);
    expect([response.statusCode, response.headers['www-authenticate']]).toEqual([
      403,
      'Bearer realm="petstore", error="insufficient_scope", scope="audit:read"',
    ]);
  });

  it('refuses asOf with 400 naming it and the read of the pet as it was, rather than answer the whole history', async () => {
    const id = await petWithAPast();
    const response = await service.send(auditor, 'GET', `/v1/pets/${id}/history?asOf=2030-01-15T10:00:00Z`);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: `Query parameter asOf cannot be set: a history holds every event of the pet, to now; GET /v1/pets/${id}?asOf=… reads it as it was.`,
      status: 400,
    });
    expect(openApiMismatches('GET', '/pets/{petId}/history', response)).toEqual([]);
  });
});

describe('GET /v1/store/orders/{orderId}/history', () => {
  it('answers an order’s events to an auditor, whichever key placed it', async () => {
    const petId = (
      await service.send(shop.secret, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1, status: 'available' })
    ).json().id;
    const order = (await service.send(shop.secret, 'POST', '/v1/store/orders', { petId })).json();
    await service.send(shop.secret, 'POST', `/v1/store/orders/${order.id}/complete`);
    const history = (await service.send(auditor, 'GET', `/v1/store/orders/${order.id}/history`)).json() as {
      type: string;
    }[];
    expect(history.map((event) => event.type)).toEqual(['OrderPlaced', 'OrderCompleted']);
  });

  it('refuses asOf with 400 naming it, rather than answer the whole history', async () => {
    const petId = (
      await service.send(shop.secret, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1, status: 'available' })
    ).json().id;
    const order = (await service.send(shop.secret, 'POST', '/v1/store/orders', { petId })).json();
    const response = await service.send(auditor, 'GET', `/v1/store/orders/${order.id}/history?asOf=1`);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message:
        'Query parameter asOf cannot be set: a history holds every event of the order, to now, each with its time and position.',
      status: 400,
    });
  });
});

describe('Pet.history in GraphQL', () => {
  it('answers the same events as REST, as a connection', async () => {
    const id = (await service.send(shop.secret, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 })).json()
      .id;
    await service.send(shop.secret, 'PATCH', `/v1/pets/${id}`, { categoryId: 5 });
    const response = await service.send(auditor, 'POST', '/graphql', {
      query:
        'query($id: SafeInt!) { pet(id: $id) { history(first: 10) { edges { node { revision type actor { name } data } } } } }',
      variables: { id },
    });
    expect(response.json().data.pet.history.edges.map((edge: { node: unknown }) => edge.node)).toEqual([
      { revision: 0, type: 'PetCreated', actor: { name: 'shop' }, data: { id, name: 'Rex', categoryId: 1 } },
      {
        revision: 1,
        type: 'PetRecategorised',
        actor: { name: 'shop' },
        data: { id, categoryId: 5, previousCategoryId: 1 },
      },
    ]);
  });

  it('refuses the field to a key without audit:read', async () => {
    const id = (await service.send(shop.secret, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 })).json()
      .id;
    const response = await service.send(shop.secret, 'POST', '/graphql', {
      query: 'query($id: SafeInt!) { pet(id: $id) { id history { edges { cursor } } } }',
      variables: { id },
    });
    expect(response.json().errors[0].extensions).toEqual({ code: 'insufficient_scope' });
  });

  it('nulls only the history a key without audit:read asked for: the pet it created is still answered', async () => {
    const response = await service.send(shop.secret, 'POST', '/graphql', {
      query:
        'mutation { createPet(input: { name: "Kept", categoryId: 2 }) { ... on Pet { id name history { edges { cursor } } } } }',
    });
    const body = response.json();
    expect(body.data.createPet).toEqual({ id: expect.any(Number), name: 'Kept', history: null });
    expect(body.errors.map((error: { path: unknown }) => error.path)).toEqual([['createPet', 'history']]);
    const stored = await service.send(shop.secret, 'GET', `/v1/pets/${body.data.createPet.id}`);
    expect(stored.json()).toMatchObject({ name: 'Kept', categoryId: 2 });
  });
});

describe('Order.history in GraphQL', () => {
  it('is null for a key without audit:read, and the order it placed is still answered', async () => {
    const pet = (
      await service.send(shop.secret, 'POST', '/v1/pets', {
        name: 'Rex',
        categoryId: 1,
        status: 'available',
      })
    ).json();
    const response = await service.send(shop.secret, 'POST', '/graphql', {
      query:
        'mutation($petId: SafeInt!) { placeOrder(input: { petId: $petId }) { ... on Order { petId history { edges { cursor } } } } }',
      variables: { petId: pet.id },
    });
    expect(response.json()).toMatchObject({ data: { placeOrder: { petId: pet.id, history: null } } });
    expect(response.json().errors.map((error: { path: unknown }) => error.path)).toEqual([
      ['placeOrder', 'history'],
    ]);
  });
});

describe('the after of a history', () => {
  it('for an id no pet ever had is a 404 not_found, as without it', async () => {
    const response = await service.send(auditor, 'GET', '/v1/pets/987654321/history?after=0');
    expect([response.statusCode, response.json()]).toEqual([
      404,
      { code: 'not_found', message: 'No pet has the id 987654321.', status: 404 },
    ]);
  });

  it('past the last revision of a pet’s stream is an empty page', async () => {
    const id = await petWithAPast();
    const response = await service.send(auditor, 'GET', `/v1/pets/${id}/history?after=3`);
    expect([response.statusCode, response.json()]).toEqual([200, []]);
  });

  it('past the largest revision is a 400 stating the range', async () => {
    const response = await service.send(auditor, 'GET', '/v1/pets/1/history?after=99999999999999999999');
    expect([response.statusCode, response.json()]).toEqual([
      400,
      {
        code: 'validation_failed',
        message: 'after must be a revision: an integer from 0 to 9007199254740991.',
        status: 400,
      },
    ]);
  });
});

describe('petHistory and orderHistory in GraphQL', () => {
  const nodes = (connection: { edges: { node: unknown }[] }) => connection.edges.map((edge) => edge.node);

  it('petHistory answers a removed pet’s events, the same as REST', async () => {
    const id = await petWithAPast();
    const rest = (await service.send(auditor, 'GET', `/v1/pets/${id}/history`)).json() as unknown[];
    const response = await service.send(auditor, 'POST', '/graphql', {
      query:
        'query($id: SafeInt!) { petHistory(id: $id) { edges { node { position revision type time actor { keyId name } requestId data } } } }',
      variables: { id },
    });
    expect(response.json()).toEqual({ data: { petHistory: { edges: rest.map((node) => ({ node })) } } });
  });

  it('orderHistory answers an auditor the events of an order another key placed', async () => {
    const petId = (
      await service.send(shop.secret, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1, status: 'available' })
    ).json().id;
    const order = (await service.send(shop.secret, 'POST', '/v1/store/orders', { petId })).json();
    await service.send(shop.secret, 'POST', `/v1/store/orders/${order.id}/cancel`);
    const response = await service.send(auditor, 'POST', '/graphql', {
      query: 'query($id: SafeInt!) { orderHistory(id: $id) { edges { node { revision type } } } }',
      variables: { id: order.id },
    });
    expect(nodes(response.json().data.orderHistory)).toEqual([
      { revision: 0, type: 'OrderPlaced' },
      { revision: 1, type: 'OrderCancelled' },
    ]);
  });

  it('pages with first and after, as REST’s limit and after', async () => {
    const id = await petWithAPast();
    const query =
      'query($id: SafeInt!, $after: String) { petHistory(id: $id, first: 2, after: $after) { edges { node { type } } pageInfo { hasNextPage endCursor } } }';
    const first = (await service.send(auditor, 'POST', '/graphql', { query, variables: { id } })).json().data
      .petHistory;
    const second = (
      await service.send(auditor, 'POST', '/graphql', {
        query,
        variables: { id, after: first.pageInfo.endCursor },
      })
    ).json().data.petHistory;
    expect([nodes(first), first.pageInfo.hasNextPage, nodes(second), second.pageInfo.hasNextPage]).toEqual([
      [{ type: 'PetCreated' }, { type: 'PetRenamed' }],
      true,
      [{ type: 'PetStatusChanged' }, { type: 'PetRemoved' }],
      false,
    ]);
  });

  it('selects the fields every event list shares through the RecordedEvent interface, in either list', async () => {
    const id = await petWithAPast();
    const fragment = 'fragment Shared on RecordedEvent { revision type requestId }';
    const response = await service.send(auditor, 'POST', '/graphql', {
      query: `query($id: SafeInt!) { petHistory(id: $id, first: 1) { edges { node { ...Shared } } } auditEvents(stream: "pet-${id}", first: 1) { edges { node { ...Shared stream } } } } ${fragment}`,
      variables: { id },
    });
    expect(response.json()).toEqual({
      data: {
        petHistory: { edges: [{ node: { revision: 0, type: 'PetCreated', requestId: 'req-create' } }] },
        auditEvents: {
          edges: [
            { node: { revision: 0, type: 'PetCreated', requestId: 'req-create', stream: `pet-${id}` } },
          ],
        },
      },
    });
  });

  it('petHistory is null with not_found for an id no pet had, as REST’s 404', async () => {
    const response = await service.send(auditor, 'POST', '/graphql', {
      query: '{ petHistory(id: 987654321) { edges { cursor } } }',
    });
    expect(response.json()).toEqual({
      data: { petHistory: null },
      errors: [
        { message: 'No pet has the id 987654321.', path: ['petHistory'], extensions: { code: 'not_found' } },
      ],
    });
  });

  it('orderHistory refuses id 0 naming the argument', async () => {
    const response = await service.send(auditor, 'POST', '/graphql', {
      query: '{ orderHistory(id: 0) { edges { cursor } } }',
    });
    expect(response.json().errors[0]).toMatchObject({
      message: 'id must be an integer from 1 to 9007199254740991.',
      extensions: { code: 'validation_failed', field: 'id' },
    });
  });

  it('refuses both to a key without audit:read', async () => {
    const response = await service.send(shop.secret, 'POST', '/graphql', {
      query: '{ petHistory(id: 1) { edges { cursor } } orderHistory(id: 1) { edges { cursor } } }',
    });
    expect(response.json()).toMatchObject({ data: { petHistory: null, orderHistory: null } });
    expect(response.json().errors.map((error: { extensions: unknown }) => error.extensions)).toEqual([
      { code: 'insufficient_scope' },
      { code: 'insufficient_scope' },
    ]);
  });
});
