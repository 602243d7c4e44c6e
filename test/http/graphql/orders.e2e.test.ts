import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../../src/application/commands/api-keys.ts';
import { apiKeyGuard } from '../../../src/http/guard.ts';
import { systemClock } from '../../../src/shared/context.ts';
import { type GraphQLServer, startGraphQLServer, subscribeOverSse } from './graphql-server.ts';

/** The store over GraphQL, behind the real guard: the same handlers, codes and rules as REST. */

let server: GraphQLServer;
let alice: Record<string, string>;
let bob: Record<string, string>;
beforeAll(async () => {
  server = await startGraphQLServer({ guard: (service) => apiKeyGuard(service.auth) });
  const key = async () => {
    const { secret, position } = await issueApiKey(
      { store: server.testApp.store, clock: systemClock },
      { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 },
      { correlationId: randomUUID() },
    );
    await server.testApp.service.auth.keys.waitFor(position);
    return { authorization: `Bearer ${secret}` };
  };
  alice = await key();
  bob = await key();
});
afterAll(() => server.close());

const ORDER_FIELDS = 'id petId status note version pet { id status }';
const RESULT = `__typename ... on Order { ${ORDER_FIELDS} } ... on Error { code message }`;

async function gql(headers: Record<string, string>, query: string, variables?: Record<string, unknown>) {
  const response = await server.post(query, variables, headers);
  expect(response.body.errors).toBeUndefined();
  return response.body.data as Record<string, Record<string, unknown>>;
}

async function newPet(status = 'available'): Promise<number> {
  return (
    await server.testApp.application.createPet({ name: 'Rex', categoryId: 1, status }, { correlationId: 't' })
  ).pet.id;
}

const place = (headers: Record<string, string>, petId: number) =>
  gql(
    headers,
    `mutation($petId: SafeInt!) { placeOrder(input: { petId: $petId, note: "hi" }) { ${RESULT} } }`,
    {
      petId,
    },
  ).then((data) => data.placeOrder!);

describe('the store over GraphQL', () => {
  it('places an order: the Order, its pet now pending', async () => {
    const petId = await newPet();
    expect(await place(alice, petId)).toEqual({
      __typename: 'Order',
      id: expect.any(Number),
      petId,
      status: 'placed',
      note: 'hi',
      version: 0,
      pet: { id: petId, status: 'pending' },
    });
  });

  it('returns a PetNotAvailableError for a sold pet', async () => {
    const petId = await newPet('sold');
    expect(await place(alice, petId)).toEqual({
      __typename: 'PetNotAvailableError',
      code: 'pet_not_available',
      message: `Pet ${petId} is sold, not available: it cannot be ordered.`,
    });
  });

  it('completes an order, then answers a second completion with an InvalidOrderTransitionError', async () => {
    const order = await place(alice, await newPet());
    const complete = `mutation($id: SafeInt!) { completeOrder(id: $id) { ${RESULT} } }`;
    expect((await gql(alice, complete, { id: order.id })).completeOrder).toMatchObject({
      __typename: 'Order',
      status: 'completed',
      pet: { status: 'sold' },
    });
    expect((await gql(alice, complete, { id: order.id })).completeOrder).toEqual({
      __typename: 'InvalidOrderTransitionError',
      code: 'invalid_order_transition',
      message: `Order ${order.id} is completed: it cannot complete any more.`,
    });
  });

  it.each(['completeOrder', 'cancelOrder'])(
    'answers %s of id 0 with a typed ValidationError naming id',
    async (field) => {
      const data = await gql(
        alice,
        `mutation { ${field}(id: 0) { __typename ... on ValidationError { field message } } }`,
      );
      expect(data[field]).toEqual({
        __typename: 'ValidationError',
        field: 'id',
        message: 'id must be an integer from 1 to 9007199254740991.',
      });
    },
  );

  it('cancels with expectedVersion, and refuses a stale one with a PreconditionFailedError', async () => {
    const order = await place(alice, await newPet());
    const cancel = `mutation($id: SafeInt!, $v: Int) { cancelOrder(id: $id, expectedVersion: $v, reason: "no") { ${RESULT} } }`;
    expect((await gql(alice, cancel, { id: order.id, v: 3 })).cancelOrder).toMatchObject({
      __typename: 'PreconditionFailedError',
    });
    expect((await gql(alice, cancel, { id: order.id, v: 0 })).cancelOrder).toMatchObject({
      status: 'cancelled',
      pet: { status: 'available' },
    });
  });

  it('answers a status change or a removal of a held pet with a PetHeldByOrderError, and changes nothing', async () => {
    const petId = await newPet();
    const order = await place(alice, petId);
    const held = {
      __typename: 'PetHeldByOrderError',
      code: 'pet_held_by_order',
      message: `Pet ${petId} is held by order ${order.id}: complete or cancel the order to change its status or remove it.`,
    };
    const errorFields = '__typename ... on Error { code message }';
    const update = `mutation($id: SafeInt!) { updatePet(id: $id, input: { status: available }) { ${errorFields} } }`;
    const remove = `mutation($id: SafeInt!) { removePet(id: $id) { ${errorFields} } }`;
    expect((await gql(alice, update, { id: petId })).updatePet).toEqual(held);
    expect((await gql(alice, remove, { id: petId })).removePet).toEqual(held);
    expect(server.testApp.application.getPet(petId)).toMatchObject({ status: 'pending', version: 1 });
  });

  it('hides another key’s order: NotFoundError to its completion, null with not_found to a read', async () => {
    const order = await place(alice, await newPet());
    const complete = `mutation($id: SafeInt!) { completeOrder(id: $id) { ${RESULT} } }`;
    expect((await gql(bob, complete, { id: order.id })).completeOrder).toMatchObject({
      __typename: 'NotFoundError',
      code: 'not_found',
    });
    const read = await server.post('query($id: SafeInt!) { order(id: $id) { id } }', { id: order.id }, bob);
    expect([read.body.data, read.body.errors?.[0]?.extensions]).toEqual([
      { order: null },
      { code: 'not_found' },
    ]);
  });

  it('pages through the key’s own orders as a connection', async () => {
    const first = await place(bob, await newPet());
    const second = await place(bob, await newPet());
    const page = (after?: string) =>
      gql(
        bob,
        'query($after: String) { orders(first: 1, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }',
        {
          after,
        },
      ).then(
        (data) =>
          data.orders as {
            edges: { node: { id: number } }[];
            pageInfo: { hasNextPage: boolean; endCursor: string };
          },
      );
    const one = await page();
    const two = await page(one.pageInfo.endCursor);
    expect([one.edges[0]!.node.id, two.edges[0]!.node.id]).toEqual([first.id, second.id]);
    expect(two.pageInfo.hasNextPage).toBe(false);
  });

  it('counts the inventory as REST does', async () => {
    const { inventory } = await gql(alice, '{ inventory { available pending sold } }');
    expect(inventory).toEqual(server.testApp.application.inventory());
  });

  it('streams the key’s own orders as they change, and never another key’s', async () => {
    let mine = 0;
    const events = await subscribeOverSse(
      server.endpoint,
      'subscription { orderChanged { id status } }',
      2,
      async () => {
        await place(bob, await newPet());
        mine = (await place(alice, await newPet())).id as number;
        await gql(alice, 'mutation($id: SafeInt!) { cancelOrder(id: $id) { __typename } }', { id: mine });
      },
      alice,
    );
    const [placed, cancelled] = await server.testApp.store.readStream(`order-${mine}`);
    expect(events).toEqual([
      {
        data: { orderChanged: { id: mine, status: 'placed' } },
        extensions: { storePosition: String(placed!.position) },
      },
      {
        data: { orderChanged: { id: mine, status: 'cancelled' } },
        extensions: { storePosition: String(cancelled!.position) },
      },
    ]);
  });

  it('resumes after a store position: the key’s own changes since, then live ones, with no gap and no repeat', async () => {
    const first = (await place(alice, await newPet())).id as number;
    const from = (await server.testApp.store.headPosition())!;
    // While the client is away: another key's order, a change and a new order of its own.
    await place(bob, await newPet());
    await gql(alice, 'mutation($id: SafeInt!) { cancelOrder(id: $id) { __typename } }', { id: first });
    const second = (await place(alice, await newPet())).id as number;
    const events = await subscribeOverSse(
      server.endpoint,
      `subscription { orderChanged(after: "${from}") { id status version } }`,
      3,
      async () => {
        await gql(alice, 'mutation($id: SafeInt!) { completeOrder(id: $id) { __typename } }', { id: second });
      },
      alice,
    );
    const [, firstCancelled] = await server.testApp.store.readStream(`order-${first}`);
    const [secondPlaced, secondCompleted] = await server.testApp.store.readStream(`order-${second}`);
    expect(events).toEqual([
      {
        data: { orderChanged: { id: first, status: 'cancelled', version: 1 } },
        extensions: { storePosition: String(firstCancelled!.position) },
      },
      {
        data: { orderChanged: { id: second, status: 'placed', version: 0 } },
        extensions: { storePosition: String(secondPlaced!.position) },
      },
      {
        data: { orderChanged: { id: second, status: 'completed', version: 1 } },
        extensions: { storePosition: String(secondCompleted!.position) },
      },
    ]);
  });
});
