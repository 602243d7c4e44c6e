import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/http/graphql/cursor.ts';
import { AS_OF_SCAN_LIMIT } from '../../src/application/ports/read-models.ts';
import { controlledClock, type GuardedApp, startGuardedApp } from '../support/guarded-app.ts';
import { MONDAY, mondayCatalogue } from '../support/monday-catalogue.ts';
import { openApiMismatches } from '../support/openapi.ts';
import { seedPets } from '../support/seed-store.ts';

/** The catalogue as it was, from the temporal index: REST and GraphQL, by time and by position. */

let service: GuardedApp;
let shop: string;
let auditor: string;
let rex: number;
let tom: number;
let positionAfterCreation: string;

const iso = (ms: number) => new Date(ms).toISOString();
const names = async (url: string) =>
  ((await service.send(auditor, 'GET', url)).json() as { name: string }[]).map((pet) => pet.name);

beforeAll(async () => {
  ({ service, shop, auditor, rex, tom, positionAfterCreation } = await mondayCatalogue());
});
afterAll(() => service.close());

describe('GET /v1/pets?asOf', () => {
  it('answers the catalogue as of a time', async () => {
    expect(await names(`/v1/pets?asOf=${iso(MONDAY + 30 * 60_000)}`)).toEqual(['Rex', 'Tom']);
    expect(await names(`/v1/pets?asOf=${iso(MONDAY + 90 * 60_000)}`)).toEqual(['Max', 'Tom']);
    expect(await names(`/v1/pets?asOf=${iso(MONDAY + 150 * 60_000)}`)).toEqual(['Max']);
  });

  it('answers the catalogue as of a store position', async () => {
    expect(await names(`/v1/pets?asOf=${positionAfterCreation}`)).toEqual(['Rex', 'Tom']);
  });

  it('refuses a position past the store’s last event with 400, rather than answer what later events would change', async () => {
    const response = await service.send(auditor, 'GET', '/v1/pets?asOf=999999999');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: expect.stringMatching(
        /^asOf 999999999 is past the store's last event \(\d+\): only send positions this service gave\.$/,
      ),
      status: 400,
    });
  });

  it('answers nothing before the first pet existed', async () => {
    expect(await names(`/v1/pets?asOf=${iso(MONDAY - 1)}`)).toEqual([]);
  });

  it('filters by the status each pet had then', async () => {
    expect(await names(`/v1/pets?status=available&asOf=${iso(MONDAY + 30 * 60_000)}`)).toEqual([
      'Rex',
      'Tom',
    ]);
    expect(await names(`/v1/pets?status=available&asOf=${iso(MONDAY + 90 * 60_000)}`)).toEqual(['Tom']);
    expect(await names(`/v1/pets?status=pending&asOf=${iso(MONDAY + 90 * 60_000)}`)).toEqual(['Max']);
  });

  it('pages with the cursor, keeping asOf in the next link', async () => {
    const at = iso(MONDAY + 30 * 60_000);
    const first = await service.send(auditor, 'GET', `/v1/pets?limit=1&asOf=${at}`);
    expect(first.headers.link).toBe(
      `</v1/pets?limit=1&asOf=${encodeURIComponent(at)}&after=${rex}>; rel="next"`,
    );
    expect(await names(`/v1/pets?limit=1&asOf=${at}&after=${rex}`)).toEqual(['Tom']);
    expect(openApiMismatches('GET', '/pets', first)).toEqual([]);
  });

  it('answers each pet with the version it had then', async () => {
    const pets = (await service.send(auditor, 'GET', `/v1/pets?asOf=${iso(MONDAY + 30 * 60_000)}`)).json();
    expect(pets[0]).toEqual({ id: rex, name: 'Rex', categoryId: 1, status: 'available' });
  });

  it('refuses the past to a key without audit:read, with 403', async () => {
    const response = await service.send(shop, 'GET', `/v1/pets?asOf=${iso(MONDAY)}`);
    expect([response.statusCode, response.json().code]).toEqual([403, 'insufficient_scope']);
  });

  it.each([['yesterday'], ['2030-01-14'], ['-5'], ['2030-02-31T00:00:00Z']])(
    'answers asOf=%s with 400',
    async (asOf) => {
      expect((await service.send(auditor, 'GET', `/v1/pets?asOf=${asOf}`)).json()).toEqual({
        code: 'validation_failed',
        message: 'asOf must be an RFC 3339 time (2026-11-16T09:00:00Z) or a store position.',
        status: 400,
      });
    },
  );
});

describe('pets(asOf) and pet(id, asOf) in GraphQL', () => {
  const graphql = (secret: string, query: string, variables: Record<string, unknown>) =>
    service.send(secret, 'POST', '/graphql', { query, variables }).then((response) => response.json());

  it('answers the catalogue and one pet as they were, and null for a pet that did not exist yet', async () => {
    const body = await graphql(
      auditor,
      'query($at: String, $id: SafeInt!) { pets(asOf: $at) { edges { node { name version } } } pet(id: $id, asOf: $at) { name } }',
      { at: iso(MONDAY + 90 * 60_000), id: tom },
    );
    expect(body.data.pets.edges.map((edge: { node: unknown }) => edge.node)).toEqual([
      { name: 'Max', version: 2 },
      { name: 'Tom', version: 0 },
    ]);
    expect(body.data.pet).toEqual({ name: 'Tom' });
    const before = await graphql(
      auditor,
      'query($id: SafeInt!) { pet(id: $id, asOf: "2030-01-01T00:00:00Z") { name } }',
      {
        id: rex,
      },
    );
    expect(before).toEqual({ data: { pet: null } });
  });

  it('may read the past catalogue once per request: two aliases are refused before anything runs', async () => {
    const body = await graphql(
      auditor,
      'query($at: String) { a: pets(asOf: "1970-01-01T00:00:00Z", first: 1) { edges { cursor } } b: pets(asOf: $at, first: 1) { edges { cursor } } }',
      { at: iso(MONDAY) },
    );
    expect(body).toEqual({
      errors: [
        expect.objectContaining({
          message: `The query reads pets with asOf 2 times; one request may read the past catalogue once (a page reads up to ${AS_OF_SCAN_LIMIT} versions of pets).`,
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      ],
    });
  });

  it('refuses the past to a key without audit:read', async () => {
    const body = await graphql(shop, '{ pets(asOf: "2030-01-14T09:30:00Z") { edges { cursor } } }', {});
    expect(body.errors[0].extensions).toEqual({ code: 'insufficient_scope' });
  });
});

describe(`an as-of page where few pets match, in a catalogue of more than ${AS_OF_SCAN_LIMIT} pets`, () => {
  let large: GuardedApp;
  let reader: string;
  let early: string; // the position at which pets 1 and 2 alone existed
  beforeAll(async () => {
    large = await startGuardedApp({ clock: controlledClock(MONDAY) });
    reader = (
      await large.issueKey({
        plan: 'enterprise',
        perMinute: 100_000,
        perDay: 1_000_000,
        scopes: ['pets:read', 'audit:read'],
      })
    ).secret;
    await seedPets(large.store, AS_OF_SCAN_LIMIT + 5);
    early = (await large.send(reader, 'GET', '/v1/pets/2/history')).json<{ position: string }[]>()[0]!
      .position;
  });
  afterAll(() => large.close());

  it(`ends short after reading ${AS_OF_SCAN_LIMIT} versions, its Link going on from where it stopped`, async () => {
    const first = await large.send(reader, 'GET', `/v1/pets?limit=10&asOf=${early}`);
    expect(first.json().map((pet: { id: number }) => pet.id)).toEqual([1, 2]);
    expect(first.headers.link).toBe(
      `</v1/pets?limit=10&asOf=${early}&after=${AS_OF_SCAN_LIMIT - 1}>; rel="next"`,
    );
    const second = await large.send(
      reader,
      'GET',
      `/v1/pets?limit=10&asOf=${early}&after=${AS_OF_SCAN_LIMIT - 1}`,
    );
    expect([second.json(), second.headers.link]).toEqual([[], undefined]);
  });

  it('has a next page in GraphQL, whose endCursor is where the page stopped reading', async () => {
    const query =
      'query($at: String) { pets(asOf: $at, first: 10) { edges { node { id } } pageInfo { hasNextPage endCursor } } }';
    const body = (await large.send(reader, 'POST', '/graphql', { query, variables: { at: early } })).json();
    expect(body).toEqual({
      data: {
        pets: {
          edges: [{ node: { id: 1 } }, { node: { id: 2 } }],
          pageInfo: { hasNextPage: true, endCursor: encodeCursor('pet', AS_OF_SCAN_LIMIT - 1) },
        },
      },
    });
  });
});

describe('the temporal index', () => {
  it('answers from its own index: the event store is not read for an as-of page', async () => {
    const { store } = service;
    const reads = { readAll: 0, readStream: 0 };
    const readAll = store.readAll.bind(store);
    const readStream = store.readStream.bind(store);
    store.readAll = (...args) => ((reads.readAll += 1), readAll(...args));
    store.readStream = (...args) => ((reads.readStream += 1), readStream(...args));
    try {
      expect(await names(`/v1/pets?asOf=${iso(MONDAY + 90 * 60_000)}`)).toEqual(['Max', 'Tom']);
    } finally {
      store.readAll = readAll;
      store.readStream = readStream;
    }
    expect(reads).toEqual({ readAll: 0, readStream: 0 });
  });
});
