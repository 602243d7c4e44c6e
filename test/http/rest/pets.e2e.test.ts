import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { openApiMismatches } from '../../support/openapi.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { BODY_LIMIT_BYTES: '1024' } });
});
afterAll(async () => {
  await t.close();
});

const json = { 'content-type': 'application/json' };

async function createPet(body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...json, ...headers },
    payload: JSON.stringify(body),
  });
}

async function petCount(): Promise<number> {
  let count = 0;
  let url: string | undefined = '/v1/pets?limit=100';
  while (url !== undefined) {
    const response: Awaited<ReturnType<typeof t.app.inject>> = await t.app.inject({ method: 'GET', url });
    count += response.json().length;
    url = /<([^>]+)>; rel="next"/.exec(String(response.headers.link ?? ''))?.[1];
  }
  return count;
}

describe('POST /v1/pets', () => {
  it('creates a pet: 201, the pet with its id, and a Location header', async () => {
    const response = await createPet({ name: 'Rex', categoryId: 3, status: 'available' });
    expect(response.statusCode).toBe(201);
    const pet = response.json();
    expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
    expect(response.headers.location).toBe(`/v1/pets/${pet.id}`);
    expect(openApiMismatches('POST', '/pets', response)).toEqual([]);
  });

  it('returns a pet created without status without the field', async () => {
    const response = await createPet({ name: 'Tom', categoryId: 3 });
    expect(Object.keys(response.json()).sort()).toEqual(['categoryId', 'id', 'name']);
  });

  it('answers an invalid body with 400 naming the field, and creates nothing', async () => {
    const before = await petCount();
    const response = await createPet({ name: 'Rex', categoryId: 'three' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: 'categoryId must be a positive integer no greater than 9007199254740991.',
      status: 400,
    });
    expect(openApiMismatches('POST', '/pets', response)).toEqual([]);
    expect(await petCount()).toBe(before);
  });

  it('refuses a client-chosen id with 400', async () => {
    const response = await createPet({ id: 5, name: 'Rex', categoryId: 3 });
    expect([response.statusCode, response.json().code]).toEqual([400, 'validation_failed']);
  });

  it('refuses a categoryId that JSON clients cannot read exactly', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: json,
      payload: '{"name":"Rex","categoryId":9007199254740993}',
    });
    expect(response.statusCode).toBe(400);
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: json,
      payload: '{"name":',
    });
    expect(response.json()).toEqual({ code: 'invalid_json', message: expect.any(String), status: 400 });
  });

  it('answers a __proto__ key with 400 rather than polluting anything', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: json,
      payload: '{"name":"Rex","categoryId":1,"__proto__":{"admin":true}}',
    });
    expect(response.statusCode).toBe(400);
  });

  it('answers a body that names a member twice with 400 validation_failed, and creates nothing', async () => {
    const before = await petCount();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: json,
      payload: '{"name":"Rex","categoryId":1,"status":"available","status":"sold"}',
    });
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message:
        'The body names the member "status" twice in one object, which leaves its value open (RFC 8259 §4): send each member once.',
      status: 400,
    });
    expect(await petCount()).toBe(before);
  });

  it('answers a missing body with 400', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/pets' });
    expect([response.statusCode, response.json().code]).toEqual([400, 'validation_failed']);
  });

  it('answers a non-JSON body with 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { 'content-type': 'text/plain' },
      payload: 'name=Rex',
    });
    expect(response.json()).toEqual({
      code: 'unsupported_media_type',
      message: 'The request body must be JSON, sent with Content-Type: application/json.',
      status: 415,
    });
  });

  it('answers a body over the limit with 413', async () => {
    const response = await createPet({ name: 'x'.repeat(2000), categoryId: 1 });
    expect(response.json()).toEqual({
      code: 'payload_too_large',
      message: 'The request body is larger than this server accepts.',
      status: 413,
    });
  });
});

describe('POST /v1/pets with Idempotency-Key', () => {
  it('replays the original 201 for a retry and creates one pet', async () => {
    const before = await petCount();
    const first = await createPet({ name: 'Once', categoryId: 1 }, { 'idempotency-key': 'retry-me-1' });
    const retry = await createPet({ name: 'Once', categoryId: 1 }, { 'idempotency-key': 'retry-me-1' });
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers.location).toBe(first.headers.location);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await petCount()).toBe(before + 1);
  });

  it('answers the same key with another body with 422', async () => {
    await createPet({ name: 'Once', categoryId: 1 }, { 'idempotency-key': 'retry-me-2' });
    const response = await createPet({ name: 'Other', categoryId: 1 }, { 'idempotency-key': 'retry-me-2' });
    expect([response.statusCode, response.json().code]).toEqual([422, 'idempotency_key_reused']);
    expect(openApiMismatches('POST', '/pets', response)).toEqual([]);
  });
});

describe('GET /v1/pets', () => {
  let created: Array<{ id: number; status?: string }>;
  beforeAll(async () => {
    created = [];
    for (let i = 0; i < 45; i++) {
      const status = ['available', 'pending', 'sold', undefined][i % 4];
      created.push(
        (await createPet({ name: `Pet ${i}`, categoryId: 1 + (i % 3), ...(status && { status }) })).json(),
      );
    }
  });

  it('returns 20 pets by default, in ascending id order, with a Link to the next page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/pets' });
    const ids = response.json().map((p: { id: number }) => p.id);
    expect(ids).toHaveLength(20);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(response.headers.link).toBe(`</v1/pets?after=${ids[19]}>; rel="next"`);
    expect(openApiMismatches('GET', '/pets', response)).toEqual([]);
  });

  it('pages through every pet exactly once by following Link headers', async () => {
    const seen: number[] = [];
    let url: string | undefined = '/v1/pets?limit=7';
    while (url !== undefined) {
      const response: Awaited<ReturnType<typeof t.app.inject>> = await t.app.inject({ method: 'GET', url });
      seen.push(...response.json().map((p: { id: number }) => p.id));
      url = /<([^>]+)>; rel="next"/.exec(String(response.headers.link ?? ''))?.[1];
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.length).toBe(await petCount());
  });

  it('sends no Link on the last page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/pets?limit=100' });
    expect(response.headers.link).toBeUndefined();
  });

  it('filters by status, and a pet without status matches no filter', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/pets?status=sold&limit=100' });
    const pets = response.json();
    expect(pets.length).toBeGreaterThan(0);
    expect(pets.every((p: { status: string }) => p.status === 'sold')).toBe(true);
    const withoutStatus = created.filter((p) => p.status === undefined).map((p) => p.id);
    for (const status of ['available', 'pending', 'sold']) {
      const all = (await t.app.inject({ method: 'GET', url: `/v1/pets?status=${status}&limit=100` })).json();
      expect(all.some((p: { id: number }) => withoutStatus.includes(p.id))).toBe(false);
    }
  });

  it('keeps the filter and limit in the next-page Link', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/pets?status=available&limit=2' });
    const last = response.json()[1].id;
    expect(response.headers.link).toBe(`</v1/pets?limit=2&status=available&after=${last}>; rel="next"`);
  });

  it.each(['1', '100'])('accepts limit=%s', async (limit) => {
    const response = await t.app.inject({ method: 'GET', url: `/v1/pets?limit=${limit}` });
    expect(response.statusCode).toBe(200);
    expect(response.json().length).toBeLessThanOrEqual(Number(limit));
  });

  it.each(['0', '101', '-1', '1.5', 'abc', '', '1e2', '99999999999999999999999'])(
    'answers limit=%j with 400',
    async (limit) => {
      const response = await t.app.inject({ method: 'GET', url: `/v1/pets?limit=${limit}` });
      expect(response.json()).toEqual({
        code: 'validation_failed',
        message: expect.stringContaining('limit'),
        status: 400,
      });
    },
  );

  it('answers a repeated limit with 400', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/pets?limit=1&limit=2' });
    expect(response.statusCode).toBe(400);
  });

  it('answers an unknown status with 400', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/pets?status=lost' });
    expect([response.statusCode, response.json().code]).toEqual([400, 'validation_failed']);
    expect(openApiMismatches('GET', '/pets', response)).toEqual([]);
  });
});

describe('GET /v1/pets/{petId}', () => {
  it('returns the pet with Deprecation, Sunset and successor Link headers', async () => {
    const pet = (await createPet({ name: 'Rex', categoryId: 3 })).json();
    const response = await t.app.inject({ method: 'GET', url: `/v1/pets/${pet.id}` });
    expect(response.json()).toEqual(pet);
    expect(response.headers.deprecation).toBe('@1795305600');
    expect(response.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(response.headers.link).toBe('</v1/pets>; rel="successor-version"');
    expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
  });

  it.each(['999999999', '9007199254740993', '9223372036854775807'])(
    'answers the unknown id %s with 404',
    async (id) => {
      const response = await t.app.inject({ method: 'GET', url: `/v1/pets/${id}` });
      expect(response.json()).toEqual({
        code: 'not_found',
        message: `No pet has the id ${id}.`,
        status: 404,
      });
      expect(response.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
    },
  );

  it.each(['abc', '0', '-4', '1.0', '9223372036854775808', '%20'])(
    'answers the malformed id %j with 400',
    async (id) => {
      const response = await t.app.inject({ method: 'GET', url: `/v1/pets/${id}` });
      expect([response.statusCode, response.json().code]).toEqual([400, 'validation_failed']);
    },
  );
});

describe('the rest of the HTTP surface', () => {
  it('answers an unknown route with 404 in the Error body', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v2/pets' });
    expect(response.json()).toEqual({ code: 'not_found', message: 'No route GET /v2/pets.', status: 404 });
  });

  it.each([
    ['DELETE', '/v1/pets', 'GET, HEAD, POST'],
    ['PUT', '/v1/pets', 'GET, HEAD, POST'],
    ['POST', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
    ['PUT', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
    ['TRACE', '/v1/pets', 'GET, HEAD, POST'],
    ['QUERY', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
    ['PROPFIND', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
    ['LOCK', '/v1/pets', 'GET, HEAD, POST'],
    ['PURGE', '/v1/store/inventory', 'GET, HEAD'],
    ['POST', '/v1/openapi.json', 'GET, HEAD'],
  ] as const)('answers %s %s with 405 and Allow: %s', async (method, url, allow) => {
    const response = await t.app.inject({ method: method as 'GET', url });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.json()).toEqual({
      code: 'method_not_allowed',
      message: `Method ${method} is not allowed here.`,
      status: 405,
    });
  });

  it('answers a wrong method with 405 even when its body could not be parsed', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: '/v1/pets',
      headers: { 'content-type': 'text/plain' },
      payload: 'not json',
    });
    expect([response.statusCode, response.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
  });

  it('echoes a well-formed X-Request-Id and makes one up otherwise', async () => {
    const given = await t.app.inject({
      method: 'GET',
      url: '/v1/pets',
      headers: { 'x-request-id': 'abc-123' },
    });
    const invented = await t.app.inject({
      method: 'GET',
      url: '/v1/pets',
      headers: { 'x-request-id': 'bad id\u0001' },
    });
    expect(given.headers['x-request-id']).toBe('abc-123');
    expect(invented.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves its OpenAPI document', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(response.json()).toEqual(JSON.parse(readFileSync('schema/openapi.json', 'utf8')));
  });
});
