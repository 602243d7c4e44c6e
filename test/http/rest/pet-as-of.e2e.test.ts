import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../../support/guarded-app.ts';
import { MONDAY, mondayCatalogue } from '../../support/monday-catalogue.ts';
import { openApiMismatches } from '../../support/openapi.ts';

/** GET /v1/pets/{petId}?asOf: one pet as it was, as GraphQL's pet(id, asOf) answers it. */

let service: GuardedApp;
let shop: string;
let auditor: string;
let rex: number;
let tom: number;
let positionAfterCreation: string;

const iso = (ms: number) => new Date(ms).toISOString();
const HALF_PAST_NINE = iso(MONDAY + 30 * 60_000);
const get = (secret: string, url: string, headers: Record<string, string> = {}) =>
  service.send(secret, 'GET', url, undefined, headers);

beforeAll(async () => {
  ({ service, shop, auditor, rex, tom, positionAfterCreation } = await mondayCatalogue());
});
afterAll(() => service.close());

describe('GET /v1/pets/{petId}?asOf', () => {
  it('answers the pet as it was at a time, with the version it had then as its ETag', async () => {
    const response = await get(auditor, `/v1/pets/${rex}?asOf=${HALF_PAST_NINE}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: rex, name: 'Rex', categoryId: 1, status: 'available' });
    expect(response.headers.etag).toBe('"0"');
    // The document's Deprecation, Sunset and successor Link, which every response of getPet keeps.
    expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
  });

  it('answers the pet as of a store position', async () => {
    const response = await get(auditor, `/v1/pets/${rex}?asOf=${positionAfterCreation}`);
    expect(response.json()).toEqual({ id: rex, name: 'Rex', categoryId: 1, status: 'available' });
  });

  it('answers a pet that did not exist yet with 404 not_found', async () => {
    const before = iso(MONDAY - 1);
    const response = await get(auditor, `/v1/pets/${rex}?asOf=${before}`);
    expect(response.json()).toEqual({
      code: 'not_found',
      message: `No pet had the id ${rex} as of ${before}: it was not created yet, or was removed by then.`,
      status: 404,
    });
    expect(response.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
  });

  it('answers a pet removed by then with 404 not_found', async () => {
    const response = await get(auditor, `/v1/pets/${tom}?asOf=${iso(MONDAY + 150 * 60_000)}`);
    expect([response.statusCode, response.json().code]).toEqual([404, 'not_found']);
  });

  it('answers a removed pet as it was before its removal', async () => {
    const response = await get(auditor, `/v1/pets/${tom}?asOf=${HALF_PAST_NINE}`);
    expect(response.json()).toEqual({ id: tom, name: 'Tom', categoryId: 2, status: 'available' });
  });

  it('refuses the past to a key without audit:read with 403 insufficient_scope, as the list does', async () => {
    const response = await get(shop, `/v1/pets/${rex}?asOf=${HALF_PAST_NINE}`);
    expect([response.statusCode, response.json().code]).toEqual([403, 'insufficient_scope']);
    expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
  });

  it('answers a malformed asOf with 400, as the list does', async () => {
    const response = await get(auditor, `/v1/pets/${rex}?asOf=yesterday`);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: 'asOf must be an RFC 3339 time (2026-11-16T09:00:00Z) or a store position.',
      status: 400,
    });
    expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
  });

  it('refuses a position past the store’s last event with 400, rather than answer what later events would change', async () => {
    const response = await get(auditor, `/v1/pets/${rex}?asOf=999999999`);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: expect.stringMatching(
        /^asOf 999999999 is past the store's last event \(\d+\): only send positions this service gave\.$/,
      ),
      status: 400,
    });
  });

  it('answers 304 while If-None-Match names the version the pet had then', async () => {
    const response = await get(auditor, `/v1/pets/${rex}?asOf=${HALF_PAST_NINE}`, { 'if-none-match': '"0"' });
    expect([response.statusCode, response.headers.etag, response.body]).toEqual([304, '"0"', '']);
  });

  it('answers the pet as it was, not 304, when If-None-Match names only its version now', async () => {
    const now = String((await get(auditor, `/v1/pets/${rex}`)).headers.etag);
    const response = await get(auditor, `/v1/pets/${rex}?asOf=${HALF_PAST_NINE}`, { 'if-none-match': now });
    expect([response.statusCode, response.json().name]).toEqual([200, 'Rex']);
  });

  it('answers 412 when If-Match names another version than the one the pet had then', async () => {
    const response = await get(auditor, `/v1/pets/${rex}?asOf=${HALF_PAST_NINE}`, { 'if-match': '"1"' });
    expect(response.json()).toEqual({
      code: 'precondition_failed',
      message: `Pet ${rex} as of ${HALF_PAST_NINE} is at version 0, not 1: read it without If-Match to get it.`,
      status: 412,
    });
  });
});

describe('GET /v1/pets/{petId}?asOf while the temporal index is behind the store', () => {
  it('answers 503 catching_up with Retry-After, as the list does, after waiting 5 s for it', async () => {
    // The index never starts following the store: it never includes the pet just created.
    const behind = await startGuardedApp({
      clock: controlledClock(MONDAY),
      backgroundAfter: new Promise(() => {}),
    });
    try {
      const limits = { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 } as const;
      const key = (await behind.issueKey({ ...limits, scopes: ['pets:read', 'pets:write', 'audit:read'] }))
        .secret;
      const id = (await behind.send(key, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 })).json().id;
      const response = await behind.send(key, 'GET', `/v1/pets/${id}?asOf=${HALF_PAST_NINE}`);
      expect([response.statusCode, response.headers['retry-after'], response.json()]).toEqual([
        503,
        '5',
        {
          code: 'catching_up',
          message: 'The temporal index is still catching up with the event store; retry shortly.',
          status: 503,
        },
      ]);
      expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
    } finally {
      await behind.close();
    }
  });
});
