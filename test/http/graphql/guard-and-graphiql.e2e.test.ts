import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../../support/guarded-app.ts';
import { startGraphQLServer } from './graphql-server.ts';

const START = Date.UTC(2030, 0, 15, 10, 0, 5);
const MINUTE_END = String(Date.UTC(2030, 0, 15, 10, 1, 0) / 1000);

/** The real service behind the real API-key guard. */
let service: GuardedApp;
beforeAll(async () => {
  service = await startGuardedApp({ clock: controlledClock(START) });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => service.close());

const subscribe = (headers: Record<string, string> = {}) =>
  service.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    payload: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
  });

describe('/graphql behind the API-key guard', () => {
  it('refuses a subscription without a key before any event stream opens: the spec’s 401 and rate-limit headers', async () => {
    const response = await subscribe();
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual({
      code: 'missing_api_key',
      message: 'Send an API key as Authorization: Bearer <key>.',
      status: 401,
    });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="petstore"');
    expect(response.headers['x-ratelimit-limit']).toBe('20');
    expect(response.headers['x-ratelimit-reset']).toBe(MINUTE_END);
  });

  it('refuses a subscription with an unknown key with invalid_api_key', async () => {
    const response = await subscribe({ authorization: 'Bearer not-a-key' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      code: 'invalid_api_key',
      message: 'The API key is malformed, unknown or revoked.',
      status: 401,
    });
  });
});

describe('/graphql behind the API-key guard, with a key', () => {
  it('opens the event stream, with the key’s rate-limit headers', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    const { port } = service.app.server.address() as { port: number };
    const client = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${secret}`,
      },
      body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
      signal: client.signal,
    });
    client.abort();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-ratelimit-limit')).toBe('60');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('59');
  });
});

describe('GraphiQL', () => {
  it('is public: served without a key at /graphiql, under the public per-address limits', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/graphiql' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<title>Pet store GraphQL</title>');
    expect(response.body).toContain('/graphql');
    expect(response.headers['x-ratelimit-limit']).toBe('20');
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
