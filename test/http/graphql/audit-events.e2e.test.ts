import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_SCAN_LIMIT } from '../../../src/application/queries/event-feed.ts';
import { type ListeningApp, startListeningApp } from '../../support/listening-app.ts';
import { subscribeOverSse } from './graphql-server.ts';

/** REST's audit feed in GraphQL: the auditEvents query and the auditEvent subscription. */

let server: ListeningApp;
let auditor: { authorization: string; keyId: string };
let writer: { authorization: string; keyId: string };
beforeAll(async () => {
  server = await startListeningApp();
  auditor = await server.issueKey(['audit:read'], 'auditor');
  writer = await server.issueKey(['pets:read', 'pets:write'], 'writer');
});
afterAll(() => server.close());

const EVENT_FIELDS = 'position stream revision type time actor { keyId name } requestId data';

type Connection = {
  edges: { cursor: string; node: { position: string; type: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
};

async function graphql(query: string, variables: Record<string, unknown> = {}, key = auditor) {
  const response = await fetch(`${server.origin}/graphql`, {
    method: 'POST',
    headers: { authorization: key.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
  };
}

async function auditEvents(args: Record<string, unknown>): Promise<Connection> {
  const body = await graphql(
    `query($first: Int, $after: String, $stream: String, $type: String) {
      auditEvents(first: $first, after: $after, stream: $stream, type: $type) {
        edges { cursor node { ${EVENT_FIELDS} } } pageInfo { hasNextPage endCursor }
      }
    }`,
    args,
  );
  expect(body.errors).toBeUndefined();
  return body.data!.auditEvents as Connection;
}

async function rest(query: string): Promise<{ events: unknown[]; link: string | null }> {
  const response = await fetch(`${server.origin}/v1/audit/events${query}`, {
    headers: { authorization: auditor.authorization },
  });
  return { events: (await response.json()) as unknown[], link: response.headers.get('link') };
}

async function createPet(name = 'Rex'): Promise<number> {
  const response = await fetch(`${server.origin}/v1/pets`, {
    method: 'POST',
    headers: { authorization: writer.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 1, status: 'available' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

const head = async () => String((await server.testApp.store.headPosition()) ?? 0n);

describe('Query.auditEvents', () => {
  it('answers the same events as REST’s page for the same filters, each edge’s cursor its position', async () => {
    const id = await createPet();
    await createPet();
    const { events } = await rest(`?stream=pet-${id}&limit=5`);
    const connection = await auditEvents({ stream: `pet-${id}`, first: 5 });
    expect(connection).toEqual({
      edges: events.map((node) => ({ cursor: (node as { position: string }).position, node })),
      pageInfo: { hasNextPage: false, endCursor: (events.at(-1) as { position: string }).position },
    });
  });

  it('pages with first and after as REST with limit and its Link', async () => {
    await createPet(); // the store's first pet reserves a block of ids: an event more
    const from = await head();
    for (let i = 0; i < 3; i++) await createPet();
    const first = await auditEvents({ after: from, first: 2 });
    const second = await auditEvents({ after: first.pageInfo.endCursor, first: 2 });
    const restFirst = await rest(`?after=${from}&limit=2`);
    const restSecond = await rest(`?after=${first.pageInfo.endCursor}&limit=2`);
    const page = (connection: Connection) => [
      connection.edges.map((edge) => edge.node),
      connection.pageInfo.hasNextPage,
    ];
    expect([page(first), page(second)]).toEqual([
      [restFirst.events, true],
      [restSecond.events, false],
    ]);
    expect([restFirst.link, restSecond.link, restSecond.events.length]).toEqual([
      `</v1/audit/events?limit=2&after=${first.pageInfo.endCursor}>; rel="next"`,
      null,
      1,
    ]);
  });

  it('has a next page though a type filter left this one empty, starting where the scan stopped', async () => {
    const store = server.testApp.store;
    const metadata = () => ({
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      schemaVersion: 1,
    });
    const from = (await store.headPosition())!;
    await Promise.all(
      Array.from({ length: FEED_SCAN_LIMIT + 5 }, () =>
        store.appendToStream(`noise-${randomUUID()}`, [{ type: 'Noise', data: {}, metadata: metadata() }]),
      ),
    );
    const needle = await store.appendToStream('needle', [{ type: 'Needle', data: {}, metadata: metadata() }]);
    const first = await auditEvents({ type: 'Needle', after: String(from) });
    const second = await auditEvents({ type: 'Needle', after: first.pageInfo.endCursor });
    expect([first, second.edges.map((edge) => edge.node.position), second.pageInfo.hasNextPage]).toEqual([
      { edges: [], pageInfo: { hasNextPage: true, endCursor: String(from + BigInt(FEED_SCAN_LIMIT) + 1n) } },
      [String(needle.position)],
      false,
    ]);
  });

  it.each([
    [{ first: 0 }, 'first must be an integer from 1 to 100.', 'first'],
    [{ first: 101 }, 'first must be an integer from 1 to 100.', 'first'],
    [{ after: 'yesterday' }, 'after must be a store position: decimal digits.', 'after'],
    [{ type: '' }, 'type must be 1 to 200 characters.', 'type'],
  ])('refuses %j naming the argument', async (args, message, field) => {
    const body = await graphql(
      'query($first: Int, $after: String, $type: String) { auditEvents(first: $first, after: $after, type: $type) { edges { cursor } } }',
      args,
    );
    expect(body).toEqual({
      data: { auditEvents: null },
      errors: [
        {
          message,
          path: ['auditEvents'],
          extensions: { code: 'validation_failed', field },
        },
      ],
    });
  });

  it('refuses an after past the store’s last event, as REST does', async () => {
    const past = BigInt(await head()) + 1000n;
    const body = await graphql('query($after: String) { auditEvents(after: $after) { edges { cursor } } }', {
      after: String(past),
    });
    expect(body.errors?.map((error) => [error.message, error.extensions])).toEqual([
      [
        expect.stringMatching(new RegExp(`^after ${past} is past the store's last event \\(\\d+\\)`)),
        { code: 'validation_failed', field: 'after' },
      ],
    ]);
  });

  it('may be read once per request: two aliases are refused before anything runs', async () => {
    const body = await graphql(
      '{ a: auditEvents(type: "PetRemoved") { edges { cursor } } b: auditEvents(type: "PetCreated") { edges { cursor } } }',
    );
    expect(body).toEqual({
      errors: [
        expect.objectContaining({
          message: `The query reads auditEvents 2 times; one request may read it once (a page reads up to ${FEED_SCAN_LIMIT} events of the store).`,
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      ],
    });
  });

  it('is null with insufficient_scope for a key without audit:read', async () => {
    const body = await graphql('{ auditEvents { edges { cursor } } }', {}, writer);
    expect(body).toEqual({
      data: { auditEvents: null },
      errors: [
        {
          message: 'This API key lacks the scope audit:read, which this operation needs.',
          path: ['auditEvents'],
          extensions: { code: 'insufficient_scope' },
        },
      ],
    });
  });
});

describe('Subscription.auditEvent', () => {
  it('delivers the events after `after` first, then live ones, each with its store position', async () => {
    const id = await createPet();
    const [created] = await server.testApp.store.readStream(`pet-${id}`);
    const rename = () =>
      fetch(`${server.origin}/v1/pets/${id}`, {
        method: 'PATCH',
        headers: { authorization: writer.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Max' }),
      });
    await rename();
    const events = await subscribeOverSse(
      `${server.origin}/graphql`,
      `subscription { auditEvent(after: "${created!.position - 1n}", stream: "pet-${id}") { ${EVENT_FIELDS} } }`,
      3,
      async () => {
        await fetch(`${server.origin}/v1/pets/${id}`, {
          method: 'DELETE',
          headers: { authorization: writer.authorization },
        });
      },
      { authorization: auditor.authorization },
    );
    const { events: feed } = await rest(`?stream=pet-${id}`);
    expect(events).toEqual(
      feed.map((event) => ({
        data: { auditEvent: event },
        extensions: { storePosition: (event as { position: string }).position },
      })),
    );
    expect(feed.map((event) => (event as { type: string }).type)).toEqual([
      'PetCreated',
      'PetRenamed',
      'PetRemoved',
    ]);
  });

  it('delivers, without `after`, only what comes after subscribing', async () => {
    await createPet('Before');
    const events = await subscribeOverSse(
      `${server.origin}/graphql`,
      'subscription { auditEvent(type: "PetCreated") { type data } }',
      1,
      async () => void (await createPet('After')),
      { authorization: auditor.authorization },
    );
    expect(events).toEqual([
      {
        data: { auditEvent: { type: 'PetCreated', data: expect.objectContaining({ name: 'After' }) } },
        extensions: { storePosition: expect.stringMatching(/^\d+$/) },
      },
    ]);
  });

  it('refuses an after past the store’s last event with validation_failed, as REST does', async () => {
    const past = BigInt(await head()) + 1000n;
    const body = await graphql(`subscription { auditEvent(after: "${past}") { position } }`);
    expect(body.errors?.map((error) => [error.message, error.extensions])).toEqual([
      [
        expect.stringMatching(new RegExp(`^after ${past} is past the store's last event \\(\\d+\\)`)),
        { code: 'validation_failed', field: 'after' },
      ],
    ]);
  });

  it('refuses a key without audit:read with insufficient_scope', async () => {
    const body = await graphql('subscription { auditEvent { position } }', {}, writer);
    expect(body.errors?.map((error) => [error.message, error.extensions])).toEqual([
      [
        'This API key lacks the scope audit:read, which this operation needs.',
        { code: 'insufficient_scope' },
      ],
    ]);
  });
});
