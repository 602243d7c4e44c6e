import fp from 'fastify-plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Guard } from '../../../src/http/guard.ts';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

/** A stand-in guard with the real one's contract: every non-public route needs the bearer key. */
const bearerGuard: Guard = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.public === true) return;
      if (request.headers.authorization === 'Bearer good') return;
      await reply
        .code(401)
        .send({ code: 'unauthorized', message: 'Missing or invalid API key.', status: 401 });
    });
  },
  { name: 'guard' },
);

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer({ guard: () => bearerGuard });
});
afterAll(() => server.close());

describe('/graphql behind the guard', () => {
  it('refuses a query without the API key with the guard’s 401', async () => {
    const response = await server.post('{ __typename }');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      code: 'unauthorized',
      message: 'Missing or invalid API key.',
      status: 401,
    });
  });

  it('answers a query with the API key', async () => {
    const response = await server.post('{ __typename }', undefined, { authorization: 'Bearer good' });
    expect(response.body).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses a subscription without the API key before any event stream opens', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
    });
    expect(response.status).toBe(401);
  });
});

describe('GraphiQL', () => {
  it('is served publicly at /graphiql outside production, pointing at /graphql', async () => {
    const response = await fetch(`${server.origin}/graphiql`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<title>Pet store GraphQL</title>');
    expect(html).toContain('/graphql');
  });

  it('is absent in production by default', async () => {
    const production = await startGraphQLServer({ env: { NODE_ENV: 'production' } });
    try {
      expect((await fetch(`${production.origin}/graphiql`)).status).toBe(404);
    } finally {
      await production.close();
    }
  });

  it('is absent when GRAPHQL_GRAPHIQL=false', async () => {
    const off = await startGraphQLServer({ env: { GRAPHQL_GRAPHIQL: 'false' } });
    try {
      expect((await fetch(`${off.origin}/graphiql`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
