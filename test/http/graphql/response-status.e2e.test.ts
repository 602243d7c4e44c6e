import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

const QUERY = 'query Page($f: Int) { pets(first: $f) { pageInfo { hasNextPage } } }';
const VARIABLES = { f: 'x' };
// graphql-jit reports no nodes for a variable, so Yoga's serializer gives the error no locations.
const COERCION_ERROR = {
  message:
    'Variable "$f" got invalid value "x"; Expected type Int; Int cannot represent non-integer value: "x"',
  extensions: { code: 'BAD_USER_INPUT' },
};

/** POST takes the fast path, GET Yoga's full handler. */
async function send(method: 'GET' | 'POST', accept: string) {
  const response =
    method === 'POST'
      ? await fetch(server.endpoint, {
          method,
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify({ query: QUERY, variables: VARIABLES }),
        })
      : await fetch(
          `${server.endpoint}?${new URLSearchParams({ query: QUERY, variables: JSON.stringify(VARIABLES) })}`,
          { headers: { accept } },
        );
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: await response.json(),
  };
}

describe('a request whose variables cannot be coerced (no data in the response)', () => {
  it.each(['POST', 'GET'] as const)(
    'is a 400 under application/graphql-response+json (%s)',
    async (method) => {
      expect(await send(method, 'application/graphql-response+json')).toEqual({
        status: 400,
        type: 'application/graphql-response+json; charset=utf-8',
        body: { errors: [COERCION_ERROR] },
      });
    },
  );

  it.each(['POST', 'GET'] as const)(
    'stays a 200 under application/json, per the spec’s legacy rules (%s)',
    async (method) => {
      expect(await send(method, 'application/json')).toEqual({
        status: 200,
        type: 'application/json; charset=utf-8',
        body: { errors: [COERCION_ERROR] },
      });
    },
  );
});

describe('a body that is not JSON', () => {
  it('is a 400 with only a code: nothing of the parser’s message, which echoes the body', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": "{ __typename }", secret-token',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }],
    });
  });
});

describe('GET parameters that are not JSON', () => {
  it.each(['variables', 'extensions'])(
    'are answered, for the %s parameter, with 400 BAD_REQUEST, as a POST body that is not JSON',
    async (name) => {
      const params = new URLSearchParams({ query: '{ __typename }', [name]: '{"f": secret-token' });
      const response = await fetch(`${server.endpoint}?${params}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        errors: [
          { message: `The "${name}" parameter is not valid JSON.`, extensions: { code: 'BAD_REQUEST' } },
        ],
      });
    },
  );
});

describe('a GET query string with a percent-encoding that is not UTF-8', () => {
  it('is a 400 bad_request with the Error body, as for REST, not a query run on other text', async () => {
    const response = await fetch(`${server.endpoint}?query=%7B__typename%FF%7D`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      code: 'bad_request',
      message: 'The query string is not valid: it holds a malformed percent-encoding.',
      status: 400,
    });
  });
});

describe('an Accept header that lists no media type GraphQL answers with', () => {
  const NOT_ACCEPTABLE = {
    code: 'not_acceptable',
    message:
      'Accept lists no media type this request can be answered with: application/graphql-response+json, ' +
      'application/json, multipart/mixed or text/event-stream for a query or mutation; text/event-stream ' +
      'for a subscription.',
    status: 406,
  };

  it.each([
    ['a query', 'POST', 'text/html', '{ __typename }'],
    ['a query', 'GET', 'image/png', '{ __typename }'],
    ['a subscription', 'POST', 'application/graphql-response+json', 'subscription { petCreated { id } }'],
    ['a subscription', 'POST', 'multipart/mixed', 'subscription { petCreated { id } }'],
  ])('is a 406 with the Error body, for %s by %s under %s', async (_, method, accept, query) => {
    const response =
      method === 'POST'
        ? await fetch(server.endpoint, {
            method,
            headers: { 'content-type': 'application/json', accept },
            body: JSON.stringify({ query }),
          })
        : await fetch(`${server.endpoint}?${new URLSearchParams({ query })}`, { headers: { accept } });
    expect([response.status, response.headers.get('content-type')]).toEqual([
      406,
      'application/json; charset=utf-8',
    ]);
    expect(await response.json()).toEqual(NOT_ACCEPTABLE);
  });
});
