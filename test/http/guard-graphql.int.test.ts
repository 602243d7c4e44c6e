import { afterEach, beforeEach, expect, it } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../support/guarded-app.ts';

const START = Date.UTC(2030, 0, 15, 10, 0, 5);
const MINUTE_END = String(Date.UTC(2030, 0, 15, 10, 1, 0) / 1000);

let service: GuardedApp;

beforeEach(async () => {
  service = await startGuardedApp({ clock: controlledClock(START) });
});
afterEach(async () => {
  await service.close();
});

const graphql = (secret?: string) =>
  service.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: {
      'content-type': 'application/json',
      ...(secret === undefined ? {} : { authorization: `Bearer ${secret}` }),
    },
    payload: JSON.stringify({ query: '{ __typename }' }),
  });

it('answers a GraphQL request without a key with 401, the challenge and the rate-limit headers', async () => {
  const response = await graphql();
  expect(response.statusCode).toBe(401);
  expect(response.json().code).toBe('missing_api_key');
  expect(response.headers['www-authenticate']).toBe('Bearer realm="petstore"');
  expect(response.headers['x-ratelimit-limit']).toBe('20');
  expect(response.headers['x-ratelimit-remaining']).toBe('19');
  expect(response.headers['x-ratelimit-reset']).toBe(MINUTE_END);
});

it('serves a GraphQL request with a key, with the key’s rate-limit headers', async () => {
  const { secret } = await service.issueKey({ plan: 'free' });
  const response = await graphql(secret);
  expect(response.statusCode).toBe(200);
  expect(response.json()).toEqual({ data: { __typename: 'Query' } });
  expect(response.headers['x-ratelimit-remaining']).toBe('59');
});

it('shares one key’s limit across REST and GraphQL: 30 of each pass, the 61st request is 429', async () => {
  const { secret } = await service.issueKey({ plan: 'free' });
  for (let i = 0; i < 30; i++) {
    const rest = await service.app.inject({
      method: 'GET',
      url: '/v1/pets',
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(rest.statusCode).toBe(200);
    expect((await graphql(secret)).statusCode).toBe(200);
  }
  const refused = await graphql(secret);
  expect(refused.statusCode).toBe(429);
  expect(refused.json().code).toBe('rate_limited');
  expect(refused.headers['x-ratelimit-remaining']).toBe('0');
});

it('refuses a batch of operations with 400, counted as one request, so batching cannot stretch a limit', async () => {
  const { secret } = await service.issueKey({ plan: 'free' });
  const response = await service.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    payload: JSON.stringify(Array.from({ length: 10 }, () => ({ query: '{ __typename }' }))),
  });
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({
    errors: [{ message: 'Batching is not supported.', extensions: { code: 'BAD_REQUEST' } }],
  });
  expect(response.headers['x-ratelimit-remaining']).toBe('59');
});
