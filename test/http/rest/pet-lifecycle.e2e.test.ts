import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { openApiMismatches } from '../../support/openapi.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Pet = { id: number; name: string; categoryId: number; status?: string };

async function create(body: Record<string, unknown> = { name: 'Rex', categoryId: 1, status: 'available' }) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return response.json() as Pet;
}

function patch(id: number, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'PATCH',
    url: `/v1/pets/${id}`,
    headers: { 'content-type': 'application/merge-patch+json', ...headers },
    payload: JSON.stringify(body),
  });
}

const remove = (id: number, headers: Record<string, string> = {}, query = '') =>
  t.app.inject({ method: 'DELETE', url: `/v1/pets/${id}${query}`, headers });
const get = (id: number, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/v1/pets/${id}`, headers });
const eventsOf = async (id: number) =>
  (await t.store.readStream(`pet-${id}`)).map(({ type, data }) => ({ type, data }));

async function listed(status?: string): Promise<Pet[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/v1/pets?limit=100${status ? `&status=${status}` : ''}`,
  });
  return response.json() as Pet[];
}

describe('PATCH /v1/pets/{petId}', () => {
  it('renames a pet: 200 with the whole pet, its new ETag, and PetRenamed with the name it replaces', async () => {
    const pet = await create();
    const response = await patch(pet.id, { name: 'Max' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ...pet, name: 'Max' });
    expect(response.headers.etag).toBe('"1"');
    expect(openApiMismatches('PATCH', '/pets/{petId}', response)).toEqual([]);
    expect((await eventsOf(pet.id))[1]).toEqual({
      type: 'PetRenamed',
      data: { id: pet.id, name: 'Max', previousName: 'Rex' },
    });
  });

  it('accepts application/json as well as application/merge-patch+json', async () => {
    const pet = await create();
    const response = await patch(pet.id, { categoryId: 9 }, { 'content-type': 'application/json' });
    expect([response.statusCode, response.json().categoryId]).toEqual([200, 9]);
  });

  it('records one event per kind of change, in the order name, category, status', async () => {
    const pet = await create();
    await patch(pet.id, { status: 'pending', categoryId: 4, name: 'Ada' });
    expect((await eventsOf(pet.id)).map((event) => event.type)).toEqual([
      'PetCreated',
      'PetRenamed',
      'PetRecategorised',
      'PetStatusChanged',
    ]);
  });

  it('records nothing for a patch that changes nothing, and answers the pet as it is', async () => {
    const pet = await create();
    const response = await patch(pet.id, { name: 'Rex', status: 'available' });
    expect([response.statusCode, response.headers.etag]).toEqual([200, '"0"']);
    expect(await eventsOf(pet.id)).toHaveLength(1);
  });

  it.each([
    [{ id: 99 }, 'Field id cannot be set; a pet accepts name, categoryId and status.'],
    [{ colour: 'red' }, 'Field colour cannot be set; a pet accepts name, categoryId and status.'],
    [{ name: null }, 'name cannot be removed; give it a value.'],
    [{ name: '   ' }, 'name must not be empty.'],
    [{ status: 'lost' }, 'status must be one of available, pending, sold.'],
  ])('answers %j with 400 and the rule it broke, and records nothing', async (body, message) => {
    const pet = await create();
    const response = await patch(pet.id, body);
    expect(response.json()).toEqual({ code: 'validation_failed', message, status: 400 });
    expect(await eventsOf(pet.id)).toHaveLength(1);
  });

  it('answers a status change the transition table forbids with 409, and records nothing', async () => {
    const pet = await create({ name: 'Rex', categoryId: 1, status: 'sold' });
    const response = await patch(pet.id, { status: 'available' });
    expect(response.json()).toEqual({
      code: 'invalid_status_transition',
      message: 'A pet that is sold cannot become available; it is final.',
      status: 409,
    });
    expect(openApiMismatches('PATCH', '/pets/{petId}', response)).toEqual([]);
    expect(await eventsOf(pet.id)).toHaveLength(1);
  });

  it('answers 404 not_found for a pet that never existed', async () => {
    const response = await patch(987654321, { name: 'Max' });
    expect([response.statusCode, response.json().code]).toEqual([404, 'not_found']);
  });

  it('shows the change in the very next list, filter and read', async () => {
    const pet = await create();
    await patch(pet.id, { status: 'pending', name: 'Moved' });
    expect((await listed('available')).map((p) => p.id)).not.toContain(pet.id);
    expect((await listed('pending')).find((p) => p.id === pet.id)).toEqual({
      ...pet,
      name: 'Moved',
      status: 'pending',
    });
    expect((await get(pet.id)).json().name).toBe('Moved');
  });
});

describe('DELETE /v1/pets/{petId}', () => {
  it('removes a pet: 204, then 404 pet_removed, gone from the list, its events kept with the reason', async () => {
    const pet = await create();
    const response = await remove(pet.id, {}, '?reason=adopted%20elsewhere');
    expect([response.statusCode, response.body]).toEqual([204, '']);
    expect((await get(pet.id)).json()).toEqual({
      code: 'pet_removed',
      message: `Pet ${pet.id} was removed; its history stays in the store.`,
      status: 404,
    });
    expect((await listed()).map((p) => p.id)).not.toContain(pet.id);
    expect(await eventsOf(pet.id)).toEqual([
      { type: 'PetCreated', data: pet },
      { type: 'PetRemoved', data: { id: pet.id, reason: 'adopted elsewhere' } },
    ]);
  });

  it('refuses a reason whose percent-encoding is not UTF-8 with 400 bad_request, and removes nothing', async () => {
    const pet = await create();
    const response = await remove(pet.id, {}, '?reason=%FF');
    expect(response.json()).toEqual({
      code: 'bad_request',
      message: 'The query string is not valid: it holds a malformed percent-encoding.',
      status: 400,
    });
    expect(await eventsOf(pet.id)).toEqual([{ type: 'PetCreated', data: pet }]);
  });

  it('refuses a create under a query whose percent-encoding is not UTF-8, though POST takes no query: nothing is created', async () => {
    const before = await listed();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/pets?%FF',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect([response.statusCode, response.json().code]).toEqual([400, 'bad_request']);
    expect(await listed()).toEqual(before);
  });

  it('keeps a reason that spells a percent sign, %25FF, as the text %FF', async () => {
    const pet = await create();
    expect((await remove(pet.id, {}, '?reason=%25FF')).statusCode).toBe(204);
    expect((await eventsOf(pet.id))[1]).toEqual({ type: 'PetRemoved', data: { id: pet.id, reason: '%FF' } });
  });

  it('answers a second DELETE with 404 pet_removed and records nothing', async () => {
    const pet = await create();
    await remove(pet.id);
    const again = await remove(pet.id);
    expect([again.statusCode, again.json().code]).toEqual([404, 'pet_removed']);
    expect(await eventsOf(pet.id)).toHaveLength(2);
  });

  it('answers a PATCH of a removed pet with 404 pet_removed', async () => {
    const pet = await create();
    await remove(pet.id);
    const response = await patch(pet.id, { name: 'Ghost' });
    expect([response.statusCode, response.json().code]).toEqual([404, 'pet_removed']);
  });

  it('refuses a DELETE whose body holds a field with 400 validation_failed, and keeps the pet', async () => {
    const pet = await create();
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/v1/pets/${pet.id}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"reason":"sold elsewhere"}',
    });
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message:
        'Field reason cannot be set; removing a pet takes no fields (a reason goes in the query: ?reason=…).',
      status: 400,
    });
    expect((await get(pet.id)).statusCode).toBe(200);
  });

  it('refuses a DELETE with a query parameter other than reason with 400 naming it, and keeps the pet', async () => {
    const pet = await create();
    const response = await remove(pet.id, {}, '?reasons=adopted');
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: 'Query parameter reasons cannot be set; removing a pet takes only reason.',
      status: 400,
    });
    expect((await get(pet.id)).statusCode).toBe(200);
  });

  it('refuses a DELETE whose body is not JSON with 415, as the document says, and keeps the pet', async () => {
    const pet = await create();
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/v1/pets/${pet.id}`,
      headers: { 'content-type': 'text/plain' },
      payload: 'sold elsewhere',
    });
    expect([response.statusCode, response.json().code]).toEqual([415, 'unsupported_media_type']);
    expect(openApiMismatches('DELETE', '/pets/{petId}', response)).toEqual([]);
    expect((await get(pet.id)).statusCode).toBe(200);
  });
});

describe('ETag, If-Match and If-None-Match', () => {
  it('tags every response that returns one pet with its version', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect(created.headers.etag).toBe('"0"');
    const id = (created.json() as Pet).id;
    await patch(id, { name: 'Max' });
    expect((await get(id)).headers.etag).toBe('"1"');
  });

  it('answers 304 without a body while If-None-Match holds, and 200 once the pet changed', async () => {
    const pet = await create();
    const unchanged = await get(pet.id, { 'if-none-match': '"0"' });
    expect([unchanged.statusCode, unchanged.body, unchanged.headers.etag]).toEqual([304, '', '"0"']);
    await patch(pet.id, { name: 'Max' });
    const changed = await get(pet.id, { 'if-none-match': '"0"' });
    expect([changed.statusCode, changed.json().name]).toEqual([200, 'Max']);
  });

  it('changes a pet whose version If-Match names', async () => {
    const pet = await create();
    const response = await patch(pet.id, { name: 'Max' }, { 'if-match': '"0"' });
    expect([response.statusCode, response.headers.etag]).toEqual([200, '"1"']);
  });

  it('answers a stale If-Match with 412 precondition_failed and records nothing', async () => {
    const pet = await create();
    await patch(pet.id, { name: 'Max' });
    const response = await patch(pet.id, { name: 'Late' }, { 'if-match': '"0"' });
    expect(response.json()).toEqual({
      code: 'precondition_failed',
      message: `Pet ${pet.id} is at version 1, not 0: read it again, then retry the change.`,
      status: 412,
    });
    expect(openApiMismatches('PATCH', '/pets/{petId}', response)).toEqual([]);
    expect(await eventsOf(pet.id)).toHaveLength(2);
  });

  it('refuses a DELETE whose If-Match is stale, and keeps the pet', async () => {
    const pet = await create();
    await patch(pet.id, { name: 'Max' });
    const response = await remove(pet.id, { 'if-match': '"0"' });
    expect(response.statusCode).toBe(412);
    expect((await get(pet.id)).statusCode).toBe(200);
  });

  it('takes If-Match: * as any version of a pet that exists', async () => {
    const pet = await create();
    await patch(pet.id, { name: 'Max' });
    expect((await patch(pet.id, { name: 'Any' }, { 'if-match': '*' })).statusCode).toBe(200);
  });

  it('never matches a weak tag in If-Match (strong comparison, RFC 9110)', async () => {
    const pet = await create();
    expect((await patch(pet.id, { name: 'Max' }, { 'if-match': 'W/"0"' })).statusCode).toBe(412);
  });

  it('answers an If-Match that names no version with 412, and records nothing', async () => {
    const pet = await create();
    const response = await patch(pet.id, { name: 'Max' }, { 'if-match': '0' });
    expect(response.json()).toEqual({
      code: 'precondition_failed',
      message: `Pet ${pet.id} is at version 0, not the one If-Match names: read it again, then retry the change.`,
      status: 412,
    });
    expect(await eventsOf(pet.id)).toHaveLength(1);
  });

  it('compares tags as exact strings: "00" is not the tag "0" of version 0', async () => {
    const pet = await create();
    expect((await patch(pet.id, { name: 'Max' }, { 'if-match': '"00"' })).statusCode).toBe(412);
    expect((await get(pet.id, { 'if-none-match': '"00"' })).statusCode).toBe(200);
    expect(await eventsOf(pet.id)).toHaveLength(1);
  });

  it('reads a pet whose version If-Match names, and answers 412 once it changed (RFC 9110 §13.1.1)', async () => {
    const pet = await create();
    expect((await get(pet.id, { 'if-match': '"0"' })).statusCode).toBe(200);
    await patch(pet.id, { name: 'Max' });
    const response = await get(pet.id, { 'if-match': '"0"' });
    expect(response.json()).toEqual({
      code: 'precondition_failed',
      message: `Pet ${pet.id} is at version 1, not 0: read it without If-Match to get it.`,
      status: 412,
    });
    expect(openApiMismatches('GET', '/pets/{petId}', response)).toEqual([]);
  });

  it('weighs If-Match before If-None-Match on a read: a failed If-Match is a 412, not a 304', async () => {
    const pet = await create();
    const response = await get(pet.id, { 'if-match': '"7"', 'if-none-match': '"0"' });
    expect(response.statusCode).toBe(412);
  });

  it('lets a read through when If-None-Match names no version', async () => {
    const pet = await create();
    expect((await get(pet.id, { 'if-none-match': 'zero' })).statusCode).toBe(200);
  });

  it('refuses a PATCH whose If-None-Match names the current version with 412, and records nothing', async () => {
    const pet = await create();
    const response = await patch(pet.id, { name: 'Max' }, { 'if-none-match': 'W/"0"' });
    expect(response.json()).toEqual({
      code: 'precondition_failed',
      message: `Pet ${pet.id} is at version 0, which If-None-Match names: nothing was changed.`,
      status: 412,
    });
    expect(openApiMismatches('PATCH', '/pets/{petId}', response)).toEqual([]);
    expect(await eventsOf(pet.id)).toHaveLength(1);
  });

  it('changes a pet once it has left the version If-None-Match names', async () => {
    const pet = await create();
    await patch(pet.id, { name: 'Max' });
    const response = await patch(pet.id, { name: 'Bo' }, { 'if-none-match': '"0"' });
    expect([response.statusCode, response.headers.etag]).toEqual([200, '"2"']);
  });

  it('refuses a DELETE with If-None-Match: * while the pet exists, and keeps the pet', async () => {
    const pet = await create();
    expect((await remove(pet.id, { 'if-none-match': '*' })).statusCode).toBe(412);
    expect((await get(pet.id)).statusCode).toBe(200);
  });

  it('answers 404 before 412 when If-None-Match: * meets a pet that does not exist', async () => {
    expect((await patch(987_654_321, { name: 'Max' }, { 'if-none-match': '*' })).statusCode).toBe(404);
  });
});
