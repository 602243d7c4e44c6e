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

/** Where the pet's PetCreated is in the store, as subscriptions report it in `extensions`. */
async function createdAt(pet: { id: number }): Promise<{ storePosition: string }> {
  const [created] = await server.testApp.store.readStream(`pet-${pet.id}`);
  return { storePosition: String(created!.position) };
}

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
  it('answers as an event stream in no content coding: no Content-Encoding header', async () => {
    const abort = new AbortController();
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
      signal: abort.signal,
    });
    const headers = {
      type: response.headers.get('content-type'),
      coding: response.headers.get('content-encoding'),
    };
    abort.abort();
    expect(headers).toEqual({ type: 'text/event-stream', coding: null });
  });

  it('tells a reverse proxy to pass each event on at once, as the REST feed does: X-Accel-Buffering: no', async () => {
    const abort = new AbortController();
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
      signal: abort.signal,
    });
    const buffering = response.headers.get('x-accel-buffering');
    abort.abort();
    expect(buffering).toBe('no');
  });

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
    expect(events).toEqual(
      await Promise.all(
        created.map(async (pet) => ({
          data: { petCreated: pet },
          extensions: await createdAt(pet as { id: number }),
        })),
      ),
    );
  });

  it('resumes after a store position: the pets created since, then live ones', async () => {
    const first = await server.testApp.application.createPet(
      { name: randomName(), categoryId: 1 },
      { correlationId: 't' },
    );
    const second = await server.testApp.application.createPet(
      { name: randomName(), categoryId: 2 },
      { correlationId: 't' },
    );
    const resumeAfter = (await createdAt(first.pet)).storePosition;
    let third: { id: number } | undefined;
    const events = await subscribeOverSse(
      server.endpoint,
      `subscription { petCreated(after: "${resumeAfter}") { id name } }`,
      2,
      async () => {
        third = (
          await server.testApp.application.createPet({ name: 'Live', categoryId: 3 }, { correlationId: 't' })
        ).pet;
      },
    );
    expect(events).toEqual([
      {
        data: { petCreated: { id: second.pet.id, name: second.pet.name } },
        extensions: await createdAt(second.pet),
      },
      { data: { petCreated: { id: third!.id, name: 'Live' } }, extensions: await createdAt(third!) },
    ]);
  });

  it('does not replay pets created before subscribing', async () => {
    const before = { name: randomName(), categoryId: randomCategoryId() };
    await server.testApp.application.createPet(before, { correlationId: 'before' });
    const after = { name: randomName(), categoryId: randomCategoryId() };
    const events = await subscribe(1, async () => {
      await server.testApp.application.createPet(after, { correlationId: 'after' });
    });
    expect(events).toEqual([
      {
        data: { petCreated: expect.objectContaining(after) },
        extensions: { storePosition: expect.any(String) },
      },
    ]);
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
