import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, randomCategoryId, randomName, startGraphQLServer } from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

/** Subscribes over server-sent events and collects `next` payloads until `count` arrived. */
async function subscribe(count: number, whenOpen: () => Promise<void>): Promise<unknown[]> {
  const abort = new AbortController();
  const response = await fetch(server.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription { petCreated { id name categoryId status } }' }),
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: unknown[] = [];
  let buffer = '';
  let opened = false;
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    if (!opened) {
      opened = true; // the first bytes mean the subscription is live
      void whenOpen();
    }
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (block.startsWith('event: next') && data !== undefined) events.push(JSON.parse(data.slice(6)));
    }
  }
  abort.abort();
  return events;
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
    const original = application.onPetCreated;
    let listeners = 0;
    application.onPetCreated = (listener) => {
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
      application.onPetCreated = original;
    }
  });
});
