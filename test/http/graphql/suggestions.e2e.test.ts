import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

/**
 * "Did you mean …" names parts of the schema the client did not name: in production, where
 * introspection is off, no error may carry one, whether validation, variable coercion or either
 * executor (graphql-jit, graphql-js for documents with several operations) produced it.
 */

let production: GraphQLServer;
let development: GraphQLServer;
beforeAll(async () => {
  [production, development] = await Promise.all([
    startGraphQLServer({ env: { NODE_ENV: 'production' } }),
    startGraphQLServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([production.close(), development.close()]);
});

const LEAKS: ReadonlyArray<
  readonly [
    what: string,
    query: string,
    variables: Record<string, unknown> | undefined,
    misspelt: string,
    hidden: string,
  ]
> = [
  ['a field', '{ pest(id: 1) { id } }', undefined, 'pest', '"pet"'],
  ['an argument', '{ pets(frist: 1) { edges { cursor } } }', undefined, 'frist', '"first"'],
  ['a directive argument', '{ __typename @include(iff: true) }', undefined, 'iff', '"if"'],
  [
    'an enum value literal',
    '{ pets(status: availble) { edges { cursor } } }',
    undefined,
    'availble',
    '"available"',
  ],
  [
    'a type in a variable definition',
    'query ($s: PetStatu) { pets(status: $s) { edges { cursor } } }',
    undefined,
    'PetStatu',
    '"PetStatus"',
  ],
  [
    'an input field literal',
    'mutation { createPet(input: {nme: "Rex", categoryId: 1}) { __typename } }',
    undefined,
    'nme',
    '"name"',
  ],
  [
    'an enum value in a variable',
    'query ($s: PetStatus) { pets(status: $s) { edges { cursor } } }',
    { s: 'availble' },
    'availble',
    '"available"',
  ],
  [
    'an input field in a variable',
    'mutation ($i: NewPet!) { createPet(input: $i) { __typename } }',
    { i: { nme: 'Rex', categoryId: 1 } },
    'nme',
    '"name"',
  ],
  [
    'an enum value in a variable, in a document graphql-js executes',
    'query A($s: PetStatus) { pets(status: $s) { edges { cursor } } } query B { __typename }',
    { s: 'availble' },
    'availble',
    '"available"',
  ],
];

const messages = async (server: GraphQLServer, query: string, variables?: Record<string, unknown>) => {
  const operationName = query.startsWith('query A') ? 'A' : undefined;
  const response = await fetch(server.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables, operationName }),
  });
  const body = (await response.json()) as { errors?: { message: string }[] };
  return (body.errors ?? []).map((error) => error.message);
};

describe('in production', () => {
  it.each(LEAKS)('suggests nothing for a misspelt %s', async (_what, query, variables, misspelt, hidden) => {
    const found = await messages(production, query, variables);
    const aboutIt = found.filter((message) => message.includes(misspelt));
    expect(aboutIt).not.toEqual([]);
    for (const message of aboutIt) {
      expect(message).not.toMatch(/did you mean|suggestion/i);
      expect(message).not.toContain(hidden);
    }
  });
});

describe('outside production', () => {
  it('still suggests, to help whoever writes the query', async () => {
    expect(await messages(development, '{ pets(status: availble) { edges { cursor } } }')).toEqual([
      'Value "availble" does not exist in "PetStatus" enum. Did you mean the enum value "available"?',
    ]);
  });
});
