import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

/** A document with a query and a mutation: operationName picks which one runs. */
const DOCUMENT =
  'query Q { pets(first: 1) { pageInfo { hasNextPage } } } ' +
  'mutation M { createPet(input: { name: "Twin", categoryId: 1 }) { ... on Pet { id } } }';

describe('a document with several operations', () => {
  it('runs the operation each request names, even after another one of the same document ran', async () => {
    const mutation = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: DOCUMENT, operationName: 'M' }),
    });
    expect(await mutation.json()).toEqual({
      data: { createPet: { id: 1 } },
      extensions: { storePosition: String(await server.testApp.store.headPosition()) },
    });

    const params = new URLSearchParams({ query: DOCUMENT, operationName: 'Q' });
    for (let i = 0; i < 3; i++) {
      const viaGet = await fetch(`${server.endpoint}?${params}`);
      expect(await viaGet.json()).toEqual({ data: { pets: { pageInfo: { hasNextPage: false } } } });
      const viaPost = await fetch(server.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: DOCUMENT, operationName: 'Q' }),
      });
      expect(await viaPost.json()).toEqual({ data: { pets: { pageInfo: { hasNextPage: false } } } });
    }
    expect(server.testApp.application.listPets().pets.map((pet) => pet.id)).toEqual([1]);
  });

  it('answers a request without operationName with 400 OPERATION_RESOLUTION_FAILURE naming the operations to choose from', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: DOCUMENT }),
    });
    expect([response.status, await response.json()]).toEqual([
      400,
      {
        errors: [
          {
            message: 'The document holds several operations (Q, M): name the one to run in operationName.',
            extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
          },
        ],
      },
    ]);
  });

  it('answers an operationName the document does not hold with 400 OPERATION_RESOLUTION_FAILURE naming those it holds', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: DOCUMENT, operationName: 'Pets' }),
    });
    expect([response.status, await response.json()]).toEqual([
      400,
      {
        errors: [
          {
            message: 'The document holds no operation named "Pets": it holds Q, M.',
            extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
          },
        ],
      },
    ]);
  });

  it('answers OPERATION_RESOLUTION_FAILURE with 200 under Accept: application/json, as every request error there', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: DOCUMENT, operationName: 'Pets' }),
    });
    expect([response.status, await response.json()]).toEqual([
      200,
      {
        errors: [
          {
            message: 'The document holds no operation named "Pets": it holds Q, M.',
            extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
          },
        ],
      },
    ]);
  });

  it('answers an operationName that is not a string with 400 BAD_REQUEST naming the parameter', async () => {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: DOCUMENT, operationName: 123 }),
    });
    expect([response.status, await response.json()]).toEqual([
      400,
      {
        errors: [
          {
            message: 'Expected "operationName" param to be empty or a string, but given number.',
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      },
    ]);
  });
});
