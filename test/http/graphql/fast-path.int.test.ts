import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastPath } from '../../../src/http/graphql/fast-path.ts';
import { openGuard } from '../../../src/http/guard.ts';
import { createPetStoreYoga } from '../../../src/http/graphql/yoga.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

/** The fast path alone, on a real Yoga over a real application: 'declined' marks a fallback. */
let testApp: TestApp;
let probe: FastifyInstance;
beforeAll(async () => {
  testApp = await startTestApp();
  await testApp.application.createPet(
    { name: 'Rex', categoryId: 7, status: 'sold' },
    { correlationId: 'seed' },
  );
  const yoga = createPetStoreYoga({
    application: testApp.application,
    introspection: true,
    logger: pino({ level: 'silent' }),
    closing: new AbortController().signal,
  });
  const tryFastPath = fastPath(yoga);
  probe = Fastify();
  await probe.register(openGuard);
  probe.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  probe.post('/graphql', async (request, reply) => {
    if (await tryFastPath(request, reply, request.body as string)) return reply;
    return reply.code(299).send('declined');
  });
  await probe.ready();
});
afterAll(async () => {
  await probe.close();
  await testApp.close();
});

async function send(body: unknown, accept?: string) {
  const response = await probe.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...(accept && { accept }) },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.statusCode, type: response.headers['content-type'], body: response.body };
}

describe('the GraphQL fast path', () => {
  it('answers a plain query itself, with the same JSON as Yoga', async () => {
    const query = '{ pets { edges { node { id name categoryId status } } } }';
    const viaYoga = await testApp.app.inject({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent(query)}`,
    });
    const fast = await send({ query });
    expect(fast).toEqual({ status: 200, type: 'application/json; charset=utf-8', body: viaYoga.body });
    expect(JSON.parse(fast.body)).toEqual({
      data: { pets: { edges: [{ node: { id: 1, name: 'Rex', categoryId: 7, status: 'sold' } }] } },
    });
  });

  it('answers with application/graphql-response+json when the client asks for it', async () => {
    const fast = await send({ query: '{ __typename }' }, 'application/graphql-response+json');
    expect(fast).toEqual({
      status: 200,
      type: 'application/graphql-response+json; charset=utf-8',
      body: '{"data":{"__typename":"Query"}}',
    });
  });

  it.each([
    ['Apollo Client', 'application/graphql-response+json,application/json;q=0.9'],
    [
      'urql',
      'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed',
    ],
    ['a browser', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
  ])('answers %s’s Accept header itself, with the type Yoga would choose', async (_client, accept) => {
    const viaYoga = await testApp.app.inject({
      method: 'GET',
      url: '/graphql?query={__typename}',
      headers: { accept },
    });
    const fast = await send({ query: '{ __typename }' }, accept);
    expect(fast).toEqual({
      status: 200,
      type: viaYoga.headers['content-type'],
      body: '{"data":{"__typename":"Query"}}',
    });
  });

  it('answers a mutation itself', async () => {
    const fast = await send({
      query: 'mutation { createPet(input: { name: "Fast", categoryId: 3 }) { ... on Pet { name } } }',
    });
    const position = await testApp.store.headPosition();
    expect(fast.body).toBe(
      `{"data":{"createPet":{"name":"Fast"}},"extensions":{"storePosition":"${position}"}}`,
    );
  });

  it('renders execution errors as Yoga does, masked and coded', async () => {
    const fast = await send({ query: '{ pet(id: 99) { id } }' });
    expect(fast).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: '{"data":{"pet":null},"errors":[{"message":"No pet has the id 99.","path":["pet"],"extensions":{"code":"not_found"}}]}',
    });
  });

  it.each([
    ['a syntax error', { query: '{' }, undefined],
    ['a validation error', { query: '{ nope }' }, undefined],
    ['a subscription', { query: 'subscription { petCreated { id } }' }, undefined],
    ['an event-stream client', { query: '{ __typename }' }, 'text/event-stream'],
    [
      'media types whose q-values contradict their order (Yoga ignores q-values)',
      { query: '{ __typename }' },
      'application/json;q=0.5, application/graphql-response+json',
    ],
    ['no acceptable JSON type', { query: '{ __typename }' }, 'text/html'],
    ['JSON refused with q=0', { query: '{ __typename }' }, 'application/json;q=0'],
    ['an unknown parameter', { query: '{ __typename }', qeury: 1 }, undefined],
    ['a batch', [{ query: '{ __typename }' }], undefined],
    ['malformed JSON', '{"query":', undefined],
    ['an unknown operation name', { query: '{ __typename }', operationName: 'Missing' }, undefined],
  ])('leaves %s to Yoga', async (_case, body, accept) => {
    expect(await send(body, accept)).toMatchObject({ status: 299, body: 'declined' });
  });
});
