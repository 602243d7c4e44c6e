import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, randomName, startGraphQLServer } from './graphql-server.ts';

const MAX = Number.MAX_SAFE_INTEGER; // 2^53 − 1, the largest id REST accepts

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

const CREATE = `mutation Create($input: NewPet!) { createPet(input: $input) { ... on Pet { id categoryId } } }`;

describe('SafeInt ids (int64 on the wire, exact up to 2^53−1)', () => {
  it('round-trips categoryId 2^53−1 through a variable exactly', async () => {
    const response = await server.post(CREATE, { input: { name: randomName(), categoryId: MAX } });
    expect((response.body.data!.createPet as { categoryId: number }).categoryId).toBe(MAX);
  });

  it('round-trips categoryId 2^53−1 written as a literal exactly', async () => {
    const response = await server.post(
      `mutation { createPet(input: { name: "Big", categoryId: ${MAX} }) { ... on Pet { categoryId } } }`,
    );
    expect(response.body.data).toEqual({ createPet: { categoryId: MAX } });
  });

  it('carries values above 2^31−1, where GraphQL Int would fail', async () => {
    const response = await server.post(CREATE, { input: { name: randomName(), categoryId: 2 ** 31 } });
    expect((response.body.data!.createPet as { categoryId: number }).categoryId).toBe(2 ** 31);
  });

  it('rejects the literal 2^53 instead of rounding it', async () => {
    const response = await server.post(`{ pet(id: 9007199254740992) { id } }`);
    expect(response.body).toEqual({
      errors: [
        {
          message: 'SafeInt must be an integer from -(2^53-1) to 2^53-1; got 9007199254740992.',
          locations: [{ line: 1, column: 11 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  });

  it('rejects a string literal as a bad value, not an internal error', async () => {
    const response = await server.post('{ pet(id: "1") { id } }');
    expect(response.body).toEqual({
      errors: [
        {
          message: 'SafeInt must be an integer from -(2^53-1) to 2^53-1; got a non-integer literal.',
          locations: [{ line: 1, column: 11 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  });

  it('rejects a fractional variable', async () => {
    const response = await server.post('query One($id: SafeInt!) { pet(id: $id) { id } }', { id: 1.5 });
    expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });

  it('rejects an id sent as a string, since SafeInt is a JSON number', async () => {
    const response = await server.post('query One($id: SafeInt!) { pet(id: $id) { id } }', { id: '1' });
    expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });
});
