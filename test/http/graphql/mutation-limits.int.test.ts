import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_MUTATION_FIELDS } from '../../../src/http/graphql/mutation-fields.ts';
import { controlledClock, type GuardedApp, startGuardedApp } from '../../support/guarded-app.ts';

/** A GraphQL write counts once per mutation field, however the document spells the fields. */

const START = Date.UTC(2030, 0, 15, 10, 0, 5);
let service: GuardedApp;
let secret: string;
beforeEach(async () => {
  service = await startGuardedApp({ clock: controlledClock(START) });
  ({ secret } = await service.issueKey({ plan: 'free' }));
});
afterEach(() => service.close());

const send = (payload: unknown) =>
  service.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });

const create = (alias: string) =>
  `${alias}: createPet(input: { name: "${alias}", categoryId: 1 }) { __typename }`;
const aliases = (count: number) => Array.from({ length: count }, (_, i) => `p${i}`);
/** Read from the application, not over HTTP: a test that spends the key's budget cannot spend more to look. */
const petCount = () => service.application.listPets({ limit: 100 }).pets.length;

describe('mutation fields and the rate limit', () => {
  it('counts a document of three aliased createPet fields as three requests', async () => {
    const response = await send({ query: `mutation { ${aliases(3).map(create).join(' ')} }` });
    expect(Object.keys(response.json().data)).toEqual(['p0', 'p1', 'p2']);
    expect(response.headers['x-ratelimit-remaining']).toBe('57');
  });

  it('follows fragments and inline fragments', async () => {
    const response = await send({
      query: `mutation { ...Two ... on Mutation { ${create('c')} } }
              fragment Two on Mutation { ${create('a')} ${create('b')} }`,
    });
    expect(Object.keys(response.json().data).sort()).toEqual(['a', 'b', 'c']);
    expect(response.headers['x-ratelimit-remaining']).toBe('57');
  });

  it('counts fields that merge into one (the same alias) once, as they run once', async () => {
    const response = await send({
      query: `mutation { ...A ...A } fragment A on Mutation { ${create('a')} }`,
    });
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
    expect(petCount()).toBe(1);
  });

  it('counts a field skipped by a directive too: the count is made before anything runs', async () => {
    const response = await send({
      query: `mutation { ${create('a')} b: createPet(input: { name: "b", categoryId: 1 }) @skip(if: true) { __typename } }`,
    });
    expect(response.headers['x-ratelimit-remaining']).toBe('58');
  });

  it(`refuses a document of more than ${MAX_MUTATION_FIELDS} mutation fields before anything runs`, async () => {
    const response = await send({
      query: `mutation { ${aliases(MAX_MUTATION_FIELDS + 1)
        .map(create)
        .join(' ')} }`,
    });
    expect(response.json()).toEqual({
      errors: [
        {
          message: `The mutation has ${MAX_MUTATION_FIELDS + 1} fields; one request may hold at most ${MAX_MUTATION_FIELDS}.`,
          locations: [{ line: 1, column: 1 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
    expect(petCount()).toBe(0);
  });

  it('answers 429 rate_limited, and creates nothing, when the fields would take the key past its limit', async () => {
    for (let i = 0; i < 5; i++) await send({ query: `mutation { ${aliases(10).map(create).join(' ')} }` });
    await send({ query: `mutation { ${aliases(5).map(create).join(' ')} }` });
    expect(petCount()).toBe(55);
    const response = await send({ query: `mutation { ${aliases(10).map(create).join(' ')} }` });
    expect(response.statusCode).toBe(429);
    expect(response.json()).toEqual({
      errors: [
        {
          message: expect.stringMatching(/^Rate limit exceeded: retry after \d+ s/),
          extensions: { code: 'rate_limited' },
        },
      ],
    });
    expect(response.headers['retry-after']).toBe('55');
    expect(petCount()).toBe(55);
  });

  it('leaves the budget a refused document would have overrun to one that fits: the refusal counts one request', async () => {
    for (let i = 0; i < 5; i++) await send({ query: `mutation { ${aliases(10).map(create).join(' ')} }` });
    await send({ query: `mutation { ${aliases(5).map(create).join(' ')} }` });
    expect((await send({ query: `mutation { ${aliases(10).map(create).join(' ')} }` })).statusCode).toBe(429);
    const fits = await send({ query: `mutation { ${aliases(4).map(create).join(' ')} }` });
    expect([fits.statusCode, fits.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
    expect(petCount()).toBe(59);
  });
});
