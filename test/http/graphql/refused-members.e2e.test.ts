import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

/**
 * A GraphQL request body that names a member twice, or `__proto__`, is refused as REST's are
 * (src/http/json-body.ts); so is a GET that gives one of its parameters twice.
 */

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

/** The body as given, not re-encoded: JSON.stringify could not repeat a member. */
const postJson = (body: string) =>
  fetch(server.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

const CREATE = 'mutation ($input: NewPet!) { createPet(input: $input) { ... on Pet { name } } }';

it('refuses variables that name a member twice with 400 validation_failed, creating nothing', async () => {
  const body = `{"query":${JSON.stringify(CREATE)},"variables":{"input":{"name":"Rex","categoryId":1,"name":"Max"}}}`;
  const response = await postJson(body);
  expect([response.status, await response.json()]).toEqual([
    400,
    {
      code: 'validation_failed',
      message:
        'The body names the member "name" twice in one object, which leaves its value open (RFC 8259 §4): send each member once.',
      status: 400,
    },
  ]);
  const names = await server.post('{ pets(first: 100) { edges { node { name } } } }');
  expect(JSON.stringify(names.body)).not.toMatch(/"(Rex|Max)"/);
});

it('refuses variables that hold a member named __proto__ with 400 validation_failed, creating nothing', async () => {
  const body = `{"query":${JSON.stringify(CREATE)},"variables":{"input":{"__proto__":{"x":1},"name":"Proto","categoryId":1}}}`;
  const response = await postJson(body);
  expect([response.status, await response.json()]).toEqual([
    400,
    {
      code: 'validation_failed',
      message: 'The body holds a member named "__proto__", which is refused wherever it appears.',
      status: 400,
    },
  ]);
  const names = await server.post('{ pets(first: 100) { edges { node { name } } } }');
  expect(JSON.stringify(names.body)).not.toContain('"Proto"');
});

it('refuses GET variables that name a member twice, as it refuses such a POST body', async () => {
  const params = new URLSearchParams({
    query: 'query ($s: PetStatus) { pets(first: 1, status: $s) { edges { node { id } } } }',
    variables: '{"s":"sold","s":"available"}',
  });
  const response = await fetch(`${server.endpoint}?${params}`);
  expect([response.status, await response.json()]).toEqual([
    400,
    {
      code: 'validation_failed',
      message:
        'The variables parameter names the member "s" twice in one object, which leaves its value open (RFC 8259 §4): send each member once.',
      status: 400,
    },
  ]);
});

const SOLD = 'query ($s: PetStatus) { pets(first: 1, status: $s) { edges { node { id } } } }';

it.each([
  ['variables', `query=${encodeURIComponent(SOLD)}&variables={"s":"sold"}&variables={"s":"available"}`],
  ['query', `query=${encodeURIComponent(SOLD)}&query={__typename}&variables={"s":"sold"}`],
  [
    'operationName',
    `query=${encodeURIComponent('query A { __typename } query B { __typename }')}&operationName=A&operationName=B`,
  ],
])(
  'refuses a GET that gives the %s parameter twice, as REST refuses a query parameter given twice',
  async (name, query) => {
    const response = await fetch(`${server.endpoint}?${query}`);
    expect([response.status, await response.json()]).toEqual([
      400,
      { code: 'validation_failed', message: `${name} must be given at most once.`, status: 400 },
    ]);
  },
);

it('still answers a body that is not JSON in GraphQL’s own shape, though it repeats a name', async () => {
  const response = await postJson('{"query":"{ __typename }","query":');
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({
    errors: [expect.objectContaining({ message: expect.any(String) })],
  });
});
