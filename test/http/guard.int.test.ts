import { randomInt, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { banApiKey } from '../../src/application/commands/api-keys.ts';
import {
  asynchronousCounters,
  controlledClock,
  type ControlledClock,
  type GuardedApp,
  startGuardedApp,
} from '../support/guarded-app.ts';
import type { CounterStore } from '../../src/application/ports/counters.ts';
import { openApiDocument, openApiMismatches } from '../support/openapi.ts';

const START = Date.UTC(2030, 0, 15, 10, 0, 5);
const MINUTE_END = Date.UTC(2030, 0, 15, 10, 1, 0) / 1000;
const DAY_END = Date.UTC(2030, 0, 16) / 1000;

let clock: ControlledClock;
let service: GuardedApp;

const get = (url: string, secret?: string, remoteAddress = '10.0.0.1') =>
  service.app.inject({
    method: 'GET',
    url,
    remoteAddress,
    headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` },
  });

const rateHeaders = (response: { headers: Record<string, unknown> }) => ({
  limit: response.headers['x-ratelimit-limit'],
  remaining: response.headers['x-ratelimit-remaining'],
  reset: response.headers['x-ratelimit-reset'],
});

// Every behaviour holds whether the counters answer at once (memory, the default) or through a
// promise (Redis): the guard takes a different path for each.
describe.each([
  { counters: 'in memory', make: () => undefined },
  { counters: 'answering through a promise', make: asynchronousCounters },
])('with counters $counters', ({ make }) => {
  beforeEach(async () => {
    clock = controlledClock(START);
    const counters = make();
    service = await startGuardedApp({
      clock,
      env: { RATE_LIMIT_BAN_SECONDS: '300' },
      ...(counters === undefined ? {} : { counters }),
    });
  });
  afterEach(async () => {
    await service.close();
  });

  describe('authentication', () => {
    it('answers a request without a key with 401, a Bearer challenge and the address limit headers', async () => {
      const response = await get('/v1/pets');
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        code: 'missing_api_key',
        message: 'Send an API key as Authorization: Bearer <key>.',
        status: 401,
      });
      expect(response.headers['www-authenticate']).toBe('Bearer realm="petstore"');
      expect(rateHeaders(response)).toEqual({ limit: '20', remaining: '19', reset: String(MINUTE_END) });
    });

    it('answers an unknown key with 401 and error="invalid_token"', async () => {
      const response = await get('/v1/pets', `psk_${'A'.repeat(43)}`);
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe('invalid_api_key');
      expect(response.headers['www-authenticate']).toBe(
        'Bearer realm="petstore", error="invalid_token", error_description="The API key is malformed, unknown or revoked"',
      );
    });

    it('answers 401 with the body and the codes schema/openapi.json documents', async () => {
      const unauthorized = openApiDocument.components.responses.Unauthorized.description;
      const errorCodes: string[] = openApiDocument.components.schemas.Error.properties.code.enum;
      for (const response of [await get('/v1/pets/1'), await get('/v1/pets/1', 'not-a-key')]) {
        expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
        const { code } = response.json();
        expect(unauthorized).toContain(`\`${code}\``);
        expect(errorCodes).toContain(code);
      }
    });

    it('answers a malformed key with 401 invalid_api_key', async () => {
      const response = await get('/v1/pets', 'not-a-key');
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe('invalid_api_key');
    });

    it('answers a revoked key with 401 invalid_api_key', async () => {
      const { secret, keyId } = await service.issueKey({ plan: 'free' });
      await service.revokeKey(keyId);
      const response = await get('/v1/pets', secret);
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe('invalid_api_key');
    });

    it('serves a valid key and records its id in the event metadata', async () => {
      const { secret, keyId } = await service.issueKey({ plan: 'free' });
      const response = await service.app.inject({
        method: 'POST',
        url: '/v1/pets',
        headers: { authorization: `Bearer ${secret}` },
        payload: { name: 'Rex', categoryId: 1 },
      });
      expect(response.statusCode).toBe(201);
      const events = await service.store.readStream(`pet-${response.json().id}`);
      expect(events[0]!.metadata.apiKeyId).toBe(keyId);
    });

    it('guards the HEAD routes Fastify adds, and leaves them public where the GET is', async () => {
      const pets = await service.app.inject({ method: 'HEAD', url: '/v1/pets', remoteAddress: '10.0.0.3' });
      expect(pets.statusCode).toBe(401);
      const health = await service.app.inject({
        method: 'HEAD',
        url: '/v1/openapi.json',
        remoteAddress: '10.0.0.3',
      });
      expect(health.statusCode).toBe(200);
      expect(rateHeaders(health)).toEqual({ limit: '20', remaining: '19', reset: String(MINUTE_END) });
    });

    it('accepts the scheme name in any case', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      const response = await service.app.inject({
        method: 'GET',
        url: '/v1/pets',
        headers: { authorization: `bearer ${secret}` },
      });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('rate-limit headers', () => {
    it('carries the binding window on a success: the minute for a fresh free key', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      const response = await get('/v1/pets', secret);
      expect(response.statusCode).toBe(200);
      expect(rateHeaders(response)).toEqual({ limit: '60', remaining: '59', reset: String(MINUTE_END) });
    });

    it('carries them on a 404', async () => {
      const { secret } = await service.issueKey({ plan: 'pro' });
      const response = await get('/v1/nowhere', secret);
      expect(response.statusCode).toBe(404);
      expect(rateHeaders(response)).toEqual({ limit: '300', remaining: '299', reset: String(MINUTE_END) });
    });

    it('carries them on public routes, counted per address', async () => {
      const response = await get('/v1/openapi.json');
      expect(response.statusCode).toBe(200);
      expect(rateHeaders(response)).toEqual({ limit: '20', remaining: '19', reset: String(MINUTE_END) });
    });

    it('never keys nor limits the health probe, however often it is asked', async () => {
      for (let i = 0; i < 300; i++) {
        const probe = await get('/health', undefined, '10.0.0.12');
        expect([probe.statusCode, probe.headers['x-ratelimit-limit']]).toEqual([200, undefined]);
      }
      expect((await get('/v1/openapi.json', undefined, '10.0.0.12')).headers['x-ratelimit-remaining']).toBe(
        '19',
      );
    });

    it('names the day window once fewer requests are left in the day than in the minute', async () => {
      const { secret } = await service.issueKey({ plan: 'enterprise', perMinute: 10, perDay: 12 });
      for (let i = 0; i < 8; i++) await get('/v1/pets', secret);
      clock.advance(60_000);
      const response = await get('/v1/pets', secret);
      expect(rateHeaders(response)).toEqual({ limit: '12', remaining: '3', reset: String(DAY_END) });
    });
  });

  describe('the deprecated GET /v1/pets/{petId}', () => {
    const deprecationHeaders = (response: { headers: Record<string, unknown> }) => ({
      deprecation: response.headers.deprecation,
      sunset: response.headers.sunset,
      link: response.headers.link,
    });
    const DEPRECATION_HEADERS = {
      deprecation: '@1795305600',
      sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      link: '</v1/pets>; rel="successor-version"',
    };

    it('carries the deprecation headers on a 401 from the guard', async () => {
      const response = await get('/v1/pets/1');
      expect(response.statusCode).toBe(401);
      expect(deprecationHeaders(response)).toEqual(DEPRECATION_HEADERS);
    });

    it('carries the deprecation headers on a 429 from the guard', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      for (let i = 0; i < 60; i++) await get('/v1/pets', secret);
      const response = await get(`/v1/pets/${randomInt(1, 1_000_000)}`, secret);
      expect(response.statusCode).toBe(429);
      expect(deprecationHeaders(response)).toEqual(DEPRECATION_HEADERS);
    });
  });

  describe('limits', () => {
    it('refuses the 61st request of a free key within a minute with 429 rate_limited and Retry-After', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      for (let i = 0; i < 60; i++) expect((await get('/v1/pets', secret)).statusCode).toBe(200);
      const response = await get('/v1/pets', secret);
      expect(response.statusCode).toBe(429);
      expect(response.json()).toEqual({
        code: 'rate_limited',
        message:
          'Rate limit exceeded: retry after 55 s, with exponential backoff. Keys that keep sending are banned.',
        status: 429,
      });
      expect(response.headers['retry-after']).toBe('55');
      expect(rateHeaders(response)).toEqual({ limit: '60', remaining: '0', reset: String(MINUTE_END) });
    });

    it('serves the key again in the next minute', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      for (let i = 0; i < 61; i++) await get('/v1/pets', secret);
      clock.advance(55_000);
      expect((await get('/v1/pets', secret)).statusCode).toBe(200);
    });

    it('refuses the 1001st request of a free key in a UTC day, until the day ends', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      for (let minute = 0; minute < 17; minute++) {
        for (let i = 0; i < (minute < 16 ? 60 : 40); i++)
          expect((await get('/v1/pets', secret)).statusCode).toBe(200);
        clock.advance(60_000);
      }
      const refused = await get('/v1/pets', secret);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe(String(DAY_END - clock.nowMs() / 1000));
      expect(rateHeaders(refused)).toEqual({ limit: '1000', remaining: '0', reset: String(DAY_END) });
      clock.set(DAY_END * 1000 + 1000);
      expect((await get('/v1/pets', secret)).statusCode).toBe(200);
    });

    it('tells a key past both its minute’s and its day’s limit to come back when the day ends, not the minute', async () => {
      const { secret } = await service.issueKey({ plan: 'enterprise', perMinute: 2, perDay: 3 });
      for (let i = 0; i < 2; i++) await get('/v1/pets', secret);
      clock.advance(60_000);
      for (let i = 0; i < 2; i++) await get('/v1/pets', secret); // the day's last request, then its first refusal
      const refused = await get('/v1/pets', secret); // past the minute's limit too
      expect(refused.json().code).toBe('rate_limited');
      expect(refused.headers['retry-after']).toBe(String(DAY_END - clock.nowMs() / 1000));
      expect(rateHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: String(DAY_END) });
    });

    it('limits requests without a valid key per address more strictly than any plan: the 21st is 429', async () => {
      for (let i = 0; i < 20; i++)
        expect((await get('/v1/pets', undefined, '10.0.0.9')).statusCode).toBe(401);
      const response = await get('/v1/pets', undefined, '10.0.0.9');
      expect(response.statusCode).toBe(429);
      // No key, so no ban to warn of: an address is only ever limited.
      expect(response.json()).toEqual({
        code: 'rate_limited',
        message: 'Rate limit exceeded: retry after 55 s, with exponential backoff.',
        status: 429,
      });
      expect((await get('/v1/pets', undefined, '10.0.0.10')).statusCode).toBe(401);
    });

    it('limits the public routes per address as strictly as requests without a key, in a budget of their own', async () => {
      for (let i = 0; i < 20; i++)
        expect((await get('/v1/openapi.json', undefined, '10.0.0.11')).statusCode).toBe(200);
      const refused = await get('/v1/openapi.json', undefined, '10.0.0.11');
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ code: 'rate_limited', status: 429 });
      expect((await get('/v1/pets', undefined, '10.0.0.11')).statusCode).toBe(401);
    });

    it('serves a valid key from an address that is over the limit for requests without one', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      for (let i = 0; i < 21; i++) await get('/v1/pets', `psk_${'B'.repeat(43)}`, '10.0.0.7');
      expect((await get('/v1/pets', undefined, '10.0.0.7')).statusCode).toBe(429);
      const response = await get('/v1/pets', secret, '10.0.0.7');
      expect(response.statusCode).toBe(200);
      expect(rateHeaders(response)).toEqual({ limit: '60', remaining: '59', reset: String(MINUTE_END) });
    });
  });

  describe('bans', () => {
    it('bans a key that sends 11 requests past its limit: 429 banned with Retry-After to the end of the ban', async () => {
      const { secret, keyId } = await service.issueKey({ plan: 'free' });
      for (let i = 0; i < 70; i++) await get('/v1/pets', secret);
      const response = await get('/v1/pets', secret);
      expect(response.statusCode).toBe(429);
      expect(response.json().code).toBe('banned');
      expect(response.headers['retry-after']).toBe('300');
      const events = await service.store.readStream(`apikey-${keyId}`);
      expect(events.map((event) => event.type)).toEqual(['ApiKeyIssued', 'ApiKeyBanned']);
      expect(events[1]!.data.until).toBe(new Date(START + 300_000).toISOString());
    });

    it('records why it banned a key, and the request that did it, in the ban event', async () => {
      const { secret, keyId } = await service.issueKey({ plan: 'free' });
      for (let i = 0; i < 71; i++) {
        await service.app.inject({
          url: '/v1/pets',
          remoteAddress: '10.0.0.1',
          headers: { authorization: `Bearer ${secret}`, 'x-request-id': `flood-${i}` },
        });
      }
      const [, ban] = await service.store.readStream(`apikey-${keyId}`);
      expect([ban?.data.reason, ban?.metadata.correlationId]).toEqual([
        'more than 10 requests past the limit in one window',
        'flood-70',
      ]);
    });

    it('keeps a banned key out in the next minute window, and lets it in once the ban ends', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      for (let i = 0; i < 71; i++) await get('/v1/pets', secret);
      clock.advance(60_000);
      const during = await get('/v1/pets', secret);
      expect(during.statusCode).toBe(429);
      expect(during.json().code).toBe('banned');
      expect(during.headers['retry-after']).toBe('240');
      expect(rateHeaders(during)).toEqual({
        limit: '60',
        remaining: '0',
        reset: String((START + 300_000) / 1000),
      });
      clock.advance(240_000);
      expect((await get('/v1/pets', secret)).statusCode).toBe(200);
    });

    it('bans a key that overran its day until the day ends, when that is later: its Retry-After is when it is served again', async () => {
      const { secret } = await service.issueKey({ plan: 'enterprise', perMinute: 20, perDay: 21 });
      for (let i = 0; i < 20; i++) await get('/v1/pets', secret);
      clock.advance(60_000);
      for (let i = 0; i < 12; i++) await get('/v1/pets', secret); // 1 served, then 11 past the day's limit
      const banned = await get('/v1/pets', secret);
      expect(banned.json().code).toBe('banned');
      expect(banned.headers['retry-after']).toBe(String(DAY_END - clock.nowMs() / 1000));
      expect(rateHeaders(banned).reset).toBe(String(DAY_END));
      clock.set(DAY_END * 1000);
      expect((await get('/v1/pets', secret)).statusCode).toBe(200);
    });

    it('bans a key until the day ends when its 11th refusal is past both its minute’s and its day’s limit', async () => {
      const { secret } = await service.issueKey({ plan: 'enterprise', perMinute: 2, perDay: 3 });
      for (let i = 0; i < 2; i++) await get('/v1/pets', secret);
      clock.advance(60_000);
      for (let i = 0; i < 12; i++) await get('/v1/pets', secret); // 1 served, then 11 refused
      const banned = await get('/v1/pets', secret);
      expect(banned.json().code).toBe('banned');
      expect(banned.headers['retry-after']).toBe(String(DAY_END - clock.nowMs() / 1000));
    });

    it('answers the requests refused while the ban is being recorded as banned, with the ban’s Retry-After', async () => {
      const { secret } = await service.issueKey({ plan: 'free' });
      for (let i = 0; i < 70; i++) await get('/v1/pets', secret);
      const burst = await Promise.all(Array.from({ length: 4 }, () => get('/v1/pets', secret)));
      expect(burst.map((response) => [response.json().code, response.headers['retry-after']])).toEqual(
        Array.from({ length: 4 }, () => ['banned', '300']),
      );
    });

    it('bans without waiting for this process to see the ban (its read models have stopped following)', async () => {
      const { secret, keyId } = await service.issueKey({ plan: 'free' });
      await service.service.readModels.stop();
      for (let i = 0; i < 70; i++) await get('/v1/pets', secret);
      const response = await get('/v1/pets', secret);
      expect(response.json().code).toBe('banned');
      expect(response.headers['retry-after']).toBe('300');
      expect((await service.store.readStream(`apikey-${keyId}`)).map((event) => event.type)).toEqual([
        'ApiKeyIssued',
        'ApiKeyBanned',
      ]);
    });

    it('answers banned, not rate_limited, when another process banned the key before this one saw it', async () => {
      const { secret, keyId } = await service.issueKey({ plan: 'free' });
      await service.service.readModels.stop();
      clock.advance(10_000);
      const ban = { seconds: 120, reason: 'another process' };
      await banApiKey({ store: service.store, clock }, keyId, ban, { correlationId: randomUUID() });
      for (let i = 0; i < 70; i++) await get('/v1/pets', secret);
      const response = await get('/v1/pets', secret);
      expect(response.json().code).toBe('banned');
      expect(response.headers['retry-after']).toBe('120');
      expect(rateHeaders(response).reset).toBe(String((START + 130_000) / 1000));
    });
  });
});

describe('when counting fails with something that is not an Error', () => {
  /** Counters that fail the way a careless store could: with `undefined`, at once or later. */
  const failing = (later: boolean): CounterStore => ({
    counter: () => ({
      consume: () => (later ? Promise.reject(undefined) : throwUndefined()),
      refund: () => undefined,
    }),
  });
  function throwUndefined(): never {
    throw undefined;
  }

  it.each([
    { when: 'at once', later: false },
    { when: 'through a promise', later: true },
  ])('refuses the request with 500 instead of serving it ($when)', async ({ later }) => {
    clock = controlledClock(START);
    service = await startGuardedApp({ clock, counters: failing(later) });
    try {
      const { secret } = await service.issueKey({ name: 'failing', plan: 'pro' });
      const response = await get('/v1/pets', secret);
      expect([response.statusCode, response.json().code]).toEqual([500, 'internal_error']);
      // A request the router refuses before any hook (a malformed escape) passes the guard too.
      const unrouted = await get('/v1/pets/%zz', secret);
      expect([unrouted.statusCode, unrouted.json().code]).toEqual([500, 'internal_error']);
    } finally {
      await service.close();
    }
  });
});
