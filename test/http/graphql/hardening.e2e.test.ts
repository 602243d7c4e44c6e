import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../../src/http/graphql/hardening.ts';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

async function rejection(
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ message: string; code: unknown }[]> {
  const response = await server.post(query, variables);
  expect(response.body.data).toBeUndefined();
  return response.body.errors!.map((error) => ({ message: error.message, code: error.extensions?.code }));
}

describe('query limits (OWASP API4)', () => {
  it(`rejects a document deeper than ${GRAPHQL_LIMITS.maxDepth}`, async () => {
    // Pets do not nest, so the deepest documents are type queries (only __schema is exempt).
    const deep =
      '{ __type(name: "Pet") { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }';
    expect(await rejection(deep)).toEqual([
      {
        message: `Query depth 10 exceeds the limit of ${GRAPHQL_LIMITS.maxDepth}.`,
        code: 'GRAPHQL_VALIDATION_FAILED',
      },
    ]);
  });

  it(`rejects more than ${GRAPHQL_LIMITS.maxAliases} aliases`, async () => {
    const aliases = Array.from(
      { length: GRAPHQL_LIMITS.maxAliases + 1 },
      (_, i) => `a${i}: pets(first: 1) { pageInfo { hasNextPage } }`,
    ).join(' ');
    expect(await rejection(`{ ${aliases} }`)).toEqual([
      {
        message: `16 aliases exceed the limit of ${GRAPHQL_LIMITS.maxAliases}.`,
        code: 'GRAPHQL_VALIDATION_FAILED',
      },
    ]);
  });

  it(`accepts exactly ${GRAPHQL_LIMITS.maxAliases} aliases`, async () => {
    const aliases = Array.from(
      { length: GRAPHQL_LIMITS.maxAliases },
      (_, i) => `a${i}: pets(first: 1) { pageInfo { hasNextPage } }`,
    ).join(' ');
    expect((await server.post(`{ ${aliases} }`)).body.errors).toBeUndefined();
  });

  it('refuses the alias __proto__, which would drop its field from a result built as an object literal', async () => {
    expect(await rejection('{ inventory { __proto__: sold pending } }')).toEqual([
      {
        message:
          'The alias "__proto__" is refused: a result object cannot hold a member of that name. Choose another alias.',
        code: 'GRAPHQL_VALIDATION_FAILED',
      },
    ]);
  });

  it(`rejects more than ${GRAPHQL_LIMITS.maxTokens} tokens`, async () => {
    const fields = '__typename '.repeat(GRAPHQL_LIMITS.maxTokens);
    expect(await rejection(`{ ${fields} }`)).toEqual([
      {
        message: `The document has more than ${GRAPHQL_LIMITS.maxTokens} tokens, the limit.`,
        code: 'GRAPHQL_PARSE_FAILED',
      },
    ]);
  });

  it(`rejects a document costing more than ${GRAPHQL_LIMITS.maxCost}`, async () => {
    const page =
      'pets(first: 100) { edges { cursor node { id name categoryId status } } pageInfo { hasNextPage endCursor } }';
    expect((await server.post(`{ ${page} }`)).body.errors).toBeUndefined();
    expect(await rejection(`{ a: ${page} b: ${page} }`)).toEqual([
      {
        message: `Query cost 6550 exceeds the limit of ${GRAPHQL_LIMITS.maxCost}.`,
        code: 'GRAPHQL_VALIDATION_FAILED',
      },
    ]);
  });

  it('counts a list size given through a variable, as a literal one', async () => {
    const page =
      'pets(first: $n) { edges { cursor node { id name categoryId status } } pageInfo { hasNextPage endCursor } }';
    expect(await rejection(`query ($n: Int) { a: ${page} b: ${page} }`, { n: 100 })).toEqual([
      {
        message: `Query cost 6550 exceeds the limit of ${GRAPHQL_LIMITS.maxCost}.`,
        code: 'GRAPHQL_VALIDATION_FAILED',
      },
    ]);
    expect(
      (await server.post(`query ($n: Int) { a: ${page} b: ${page} }`, { n: 50 })).body.errors,
    ).toBeUndefined();
  });

  it('states a cost that is not a whole number as the next one up', async () => {
    const page = (alias: string) =>
      `${alias}: pets(first: 77) { edges { cursor node { id name } } pageInfo { hasNextPage } }`;
    // Each page costs 77 × 23.75 = 1828.75; three cost 5486.25.
    expect(await rejection(`{ ${page('a')} ${page('b')} ${page('c')} }`)).toEqual([
      {
        message: `Query cost 5487 exceeds the limit of ${GRAPHQL_LIMITS.maxCost}.`,
        code: 'GRAPHQL_VALIDATION_FAILED',
      },
    ]);
  });

  it(`rejects more than ${GRAPHQL_LIMITS.maxDirectives} directives`, async () => {
    const fields = Array.from(
      { length: GRAPHQL_LIMITS.maxDirectives + 1 },
      (_, i) => `f${i}: __typename @skip(if: false)`,
    );
    expect(await rejection(`{ ${fields.join(' ')} }`)).toEqual([
      {
        message: `11 directives exceed the limit of ${GRAPHQL_LIMITS.maxDirectives}.`,
        code: 'GRAPHQL_VALIDATION_FAILED',
      },
    ]);
  });
});

describe('operation batching', () => {
  it('is off: an array of operations is refused, so one request is always one operation for the rate limiter', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      errors: [{ message: 'Batching is not supported.', extensions: { code: 'BAD_REQUEST' } }],
    });
  });
});

describe('introspection', () => {
  it('is on by default outside production', async () => {
    const response = await server.post('{ __schema { queryType { name } } }');
    expect(response.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('is off by default in production, and field suggestions with it', async () => {
    const production = await startGraphQLServer({ env: { NODE_ENV: 'production' } });
    try {
      expect((await production.post('{ __schema { queryType { name } } }')).body.errors).toEqual([
        {
          message: 'GraphQL introspection is disabled here, but the query asked for "__schema".',
          locations: [{ line: 1, column: 3 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ]);
      expect((await production.post('{ pest(id: 1) { id } }')).body.errors?.[0]?.message).toBe(
        'Cannot query field "pest" on type "Query".',
      );
    } finally {
      await production.close();
    }
  });

  it('can be switched on in production with GRAPHQL_INTROSPECTION=true', async () => {
    const production = await startGraphQLServer({
      env: { NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' },
    });
    try {
      expect((await production.post('{ __type(name: "Pet") { name } }')).body).toEqual({
        data: { __type: { name: 'Pet' } },
      });
    } finally {
      await production.close();
    }
  });
});
