import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

/** What Apollo Client's PersistedQueryLink and urql's persistedExchange send first: a hash, no query. */
const HASH_ONLY = {
  operationName: 'Inventory',
  variables: {},
  extensions: {
    persistedQuery: {
      version: 1,
      sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38',
    },
  },
};

/** The answer on which both clients stop sending hashes and send the query text instead. */
const NOT_SUPPORTED = {
  errors: [
    {
      message: 'PersistedQueryNotSupported',
      extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
    },
  ],
};

describe('automatic persisted queries, which the service does not keep', () => {
  it('answers a POST holding only a persisted query hash with PersistedQueryNotSupported', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify(HASH_ONLY),
    });
    expect([response.status, await response.json()]).toEqual([400, NOT_SUPPORTED]);
  });

  it('answers a GET holding only a persisted query hash with PersistedQueryNotSupported', async () => {
    const params = new URLSearchParams({
      operationName: HASH_ONLY.operationName,
      variables: JSON.stringify(HASH_ONLY.variables),
      extensions: JSON.stringify(HASH_ONLY.extensions),
    });
    const response = await fetch(`${server.endpoint}?${params}`, {
      headers: { accept: 'application/graphql-response+json' },
    });
    expect([response.status, await response.json()]).toEqual([400, NOT_SUPPORTED]);
  });

  it('runs the query text a client sends beside its hash', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...HASH_ONLY, query: 'query Inventory { inventory { available } }' }),
    });
    expect([response.status, await response.json()]).toEqual([
      200,
      { data: { inventory: { available: 0 } } },
    ]);
  });
});
