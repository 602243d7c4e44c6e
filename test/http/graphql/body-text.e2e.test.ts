import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

/** A GraphQL request body is decoded by its declared charset, as REST's are (src/http/body-text.ts). */

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

const CREATE_ZOE = JSON.stringify({
  query: 'mutation { createPet(input: {name: "Zoë", categoryId: 1}) { ... on Pet { name } } }',
});

const post = (contentType: string, body: Buffer) =>
  fetch(server.endpoint, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: new Uint8Array(body),
  });

const petCount = async () =>
  (
    (await server.post('{ pets(first: 100) { edges { node { name } } } }')).body.data as {
      pets: { edges: unknown[] };
    }
  ).pets.edges.length;

it('decodes a body declared ISO-8859-1: the name arrives as sent', async () => {
  const response = await post('application/json; charset=iso-8859-1', Buffer.from(CREATE_ZOE, 'latin1'));
  expect(await response.json()).toEqual({
    data: { createPet: { name: 'Zoë' } },
    extensions: { storePosition: expect.stringMatching(/^\d+$/) },
  });
});

it('refuses bytes that are not UTF-8 in a body without a charset with 400, creating nothing', async () => {
  const before = await petCount();
  const response = await post('application/json', Buffer.from(CREATE_ZOE, 'latin1'));
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({
    code: 'invalid_json',
    message: 'The body is not valid UTF-8; declare its charset if it is not.',
    status: 400,
  });
  expect(await petCount()).toBe(before);
});

it('answers a charset it does not decode with 415', async () => {
  const response = await post('application/json; charset=utf-16le', Buffer.from(CREATE_ZOE, 'utf16le'));
  expect(response.status).toBe(415);
  expect((await response.json()).code).toBe('unsupported_media_type');
});
