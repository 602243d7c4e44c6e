import type { FastifyRequest } from 'fastify';
import { expect, it } from 'vitest';
import type { ApiKey } from '../../src/domain/api-keys.ts';
import { requestContext } from '../../src/http/request-context.ts';

const request = (apiKey: Partial<ApiKey> | null) =>
  ({
    id: 'req-1',
    apiKey,
    storePosition: undefined,
    hasScope: (scope: string) => apiKey?.scopes?.includes(scope as never) ?? false,
  }) as unknown as FastifyRequest;

it('names the API key the guard authenticated', () => {
  expect(requestContext(request({ keyId: 'key_0123456789abcdef', scopes: ['pets:read'] }))).toEqual({
    correlationId: 'req-1',
    apiKeyId: 'key_0123456789abcdef',
    admin: false,
    recordPosition: expect.any(Function),
  });
});

it('tells an admin key', () => {
  expect(requestContext(request({ keyId: 'key_0123456789abcdef', scopes: ['admin'] })).admin).toBe(true);
});

it('names no key on a public route', () => {
  expect(requestContext(request(null))).toEqual({
    correlationId: 'req-1',
    recordPosition: expect.any(Function),
  });
});

it('keeps on the request the highest store position the application tells it', () => {
  const fastifyRequest = request(null);
  const context = requestContext(fastifyRequest);
  context.recordPosition!(41n);
  context.recordPosition!(43n);
  context.recordPosition!(42n);
  expect(fastifyRequest.storePosition).toBe(43n);
});
