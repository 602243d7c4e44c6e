import { afterEach, beforeEach, expect, it } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../support/guarded-app.ts';

/** URLs Fastify's router refuses before routing still pass the guard and get the Error body. */

const MINUTE_END = String(Date.UTC(2030, 0, 15, 10, 1, 0) / 1000);
const LONG_ID = '1'.repeat(150);

let service: GuardedApp;

beforeEach(async () => {
  service = await startGuardedApp({
    clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)),
    env: { TRUST_PROXY: '10.0.0.1' },
  });
});
afterEach(async () => {
  await service.close();
});

const get = (url: string, secret?: string, headers: Record<string, string> = {}) =>
  service.app.inject({
    method: 'GET',
    url,
    remoteAddress: '10.0.0.1',
    headers: { ...headers, ...(secret === undefined ? {} : { authorization: `Bearer ${secret}` }) },
  });

const rateHeaders = (response: { headers: Record<string, unknown> }) => [
  response.headers['x-ratelimit-limit'],
  response.headers['x-ratelimit-remaining'],
  response.headers['x-ratelimit-reset'],
];

it('answers a malformed percent-encoding with 400 bad_request and the key’s rate-limit headers', async () => {
  const { secret } = await service.issueKey({ plan: 'free' });
  const response = await get('/v1/pets/%zz', secret);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({
    code: 'bad_request',
    message: 'The URL is not valid: it holds a malformed percent-encoding.',
    status: 400,
  });
  expect(rateHeaders(response)).toEqual(['60', '59', MINUTE_END]);
  expect(response.headers['x-request-id']).toEqual(expect.any(String));
});

it('answers a malformed percent-encoding in the query as in the path: 400 bad_request and the key’s rate-limit headers', async () => {
  const { secret } = await service.issueKey({ plan: 'free' });
  const response = await get('/v1/pets?status=%FF', secret);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({
    code: 'bad_request',
    message: 'The query string is not valid: it holds a malformed percent-encoding.',
    status: 400,
  });
  expect(rateHeaders(response)).toEqual(['60', '59', MINUTE_END]);
});

it('answers a malformed query without a key with 401 and the address’s headers', async () => {
  const response = await get('/v1/pets?status=%FF');
  expect(response.statusCode).toBe(401);
  expect(response.json()).toMatchObject({ code: 'missing_api_key', status: 401 });
  expect(rateHeaders(response)).toEqual(['20', '19', MINUTE_END]);
});

it('answers a malformed URL without a key with 401 and the address’s headers', async () => {
  const response = await get('/v1/pets/%zz');
  expect(response.statusCode).toBe(401);
  expect(response.json()).toMatchObject({ code: 'missing_api_key', status: 401 });
  expect(response.headers['www-authenticate']).toBe('Bearer realm="petstore"');
  expect(rateHeaders(response)).toEqual(['20', '19', MINUTE_END]);
});

it('lets a 150-digit id reach its route, which answers with its own 400 and the headers', async () => {
  const { secret } = await service.issueKey({ plan: 'free' });
  const response = await get(`/v1/pets/${LONG_ID}`, secret);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({
    code: 'validation_failed',
    message: 'petId must be an integer.',
    status: 400,
  });
  expect(rateHeaders(response)).toEqual(['60', '59', MINUTE_END]);
});

it('answers a 150-digit id without a key with 401 and the headers', async () => {
  const response = await get(`/v1/pets/${LONG_ID}`);
  expect(response.statusCode).toBe(401);
  expect(rateHeaders(response)).toEqual(['20', '19', MINUTE_END]);
});

it('answers a path segment past the router’s limit with 400 validation_failed and the headers', async () => {
  const { secret } = await service.issueKey({ plan: 'free' });
  const response = await get(`/v1/pets/${'1'.repeat(1001)}`, secret);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({
    code: 'validation_failed',
    message: 'A path segment is longer than 1000 characters.',
    status: 400,
  });
  expect(rateHeaders(response)).toEqual(['60', '59', MINUTE_END]);
});

it('counts malformed URLs against the key: the 61st request of a free key is 429', async () => {
  const { secret } = await service.issueKey({ plan: 'free' });
  for (let i = 0; i < 60; i++) expect((await get('/v1/pets/%zz', secret)).statusCode).toBe(400);
  const response = await get('/v1/pets/%zz', secret);
  expect(response.statusCode).toBe(429);
  expect(response.json()).toMatchObject({ code: 'rate_limited', status: 429 });
});

it('counts malformed URLs without a key by the client address behind the trusted proxy', async () => {
  for (let i = 0; i < 20; i++)
    expect(
      (await get('/v1/pets/%zz', undefined, { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.9` }))
        .statusCode,
    ).toBe(401);
  const spoofed = await get('/v1/pets/%zz', undefined, { 'x-forwarded-for': '198.51.100.99, 203.0.113.9' });
  expect(spoofed.statusCode).toBe(429);
  expect((await get('/v1/pets/%zz', undefined, { 'x-forwarded-for': '203.0.113.10' })).statusCode).toBe(401);
});
