import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GraphQLServer,
  randomCategoryId,
  randomName,
  startGraphQLServer,
  subscribeOverSse,
} from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

/** Subscribes to petCreated and collects `next` payloads until `count` arrived. */
function subscribe(count: number, whenOpen: () => Promise<void>): Promise<unknown[]> {
  return subscribeOverSse(
    server.endpoint,
    'subscription { petCreated { id name categoryId status } }',
    count,
    whenOpen,
  );
}

describe('Subscription.petCreated over server-sent events', () => {
  it('delivers pets created through GraphQL and REST after subscribing, in store order', async () => {
    const viaGraphQL = { name: randomName(), categoryId: randomCategoryId(), status: 'available' };
    const viaRest = { name: randomName(), categoryId: randomCategoryId(), status: 'sold' };
    const created: unknown[] = [];
    const events = await subscribe(2, async () => {
      const first = await server.post(
        'mutation C($input: NewPet!) { createPet(input: $input) { ... on Pet { id name categoryId status } } }',
        { input: viaGraphQL },
      );
      created.push(first.body.data!.createPet);
      const second = await fetch(`${server.origin}/v1/pets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
        body: JSON.stringify(viaRest),
      });
      created.push(await second.json());
    });
    expect(events).toEqual(created.map((pet) => ({ data: { petCreated: pet } })));
  });

  it('does not replay pets created before subscribing', async () => {
    const before = { name: randomName(), categoryId: randomCategoryId() };
    await server.testApp.application.createPet(before, { correlationId: 'before' });
    const after = { name: randomName(), categoryId: randomCategoryId() };
    const events = await subscribe(1, async () => {
      await server.testApp.application.createPet(after, { correlationId: 'after' });
    });
    expect(events).toEqual([{ data: { petCreated: expect.objectContaining(after) } }]);
  });

  it('unsubscribes from the application when the client disconnects', async () => {
    const { application } = server.testApp;
    const original = application.onPetChange;
    let listeners = 0;
    application.onPetChange = (listener) => {
      listeners++;
      const unsubscribe = original(listener);
      return () => {
        listeners--;
        unsubscribe();
      };
    };
    try {
      const client = new AbortController();
      const response = await fetch(server.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
        signal: client.signal,
      });
      await response.body!.getReader().read(); // the first ping: the subscription is live
      expect(listeners).toBe(1);
      client.abort();
      await expect.poll(() => listeners, { timeout: 2000 }).toBe(0);
    } finally {
      application.onPetChange = original;
    }
  });
});
