import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, randomCategoryId, randomName, startGraphQLServer } from './graphql-server.ts';

const CREATE = `mutation Create($input: NewPet!) {
  createPet(input: $input) {
    __typename
    ... on Pet { id name categoryId status }
    ... on ValidationError { code field message }
  }
}`;

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

describe('Mutation.createPet', () => {
  it('returns the created pet with its assigned id', async () => {
    const input = { name: randomName(), categoryId: randomCategoryId(), status: 'pending' };
    const response = await server.post(CREATE, { input });
    const pet = response.body.data!.createPet as { id: number };
    expect(response.body).toEqual({
      data: { createPet: { __typename: 'Pet', id: pet.id, ...input } },
      extensions: { storePosition: String(await server.testApp.store.headPosition()) },
    });
    expect(server.testApp.application.getPet(pet.id)).toEqual({ id: pet.id, ...input, version: 0 });
  });

  it('creates a pet without a status when none is given, inventing no default', async () => {
    const input = { name: randomName(), categoryId: randomCategoryId() };
    const response = await server.post(CREATE, { input });
    expect(response.body.data!.createPet).toMatchObject({ __typename: 'Pet', ...input, status: null });
  });

  it('returns a ValidationError naming name for a blank name, creating nothing', async () => {
    const before = server.testApp.application.listPets({ limit: 100 }).pets.length;
    const response = await server.post(CREATE, { input: { name: '   ', categoryId: 1 } });
    expect(response.body).toEqual({
      data: {
        createPet: {
          __typename: 'ValidationError',
          code: 'validation_failed',
          field: 'name',
          message: 'name must not be empty.',
        },
      },
    });
    expect(server.testApp.application.listPets({ limit: 100 }).pets).toHaveLength(before);
  });

  it('returns a ValidationError naming name for a name over 100 characters', async () => {
    const response = await server.post(CREATE, { input: { name: 'x'.repeat(101), categoryId: 1 } });
    expect(response.body.data!.createPet).toEqual({
      __typename: 'ValidationError',
      code: 'validation_failed',
      field: 'name',
      message: 'name must be at most 100 characters.',
    });
  });

  it('returns a ValidationError naming categoryId for category 0', async () => {
    const response = await server.post(CREATE, { input: { name: randomName(), categoryId: 0 } });
    expect(response.body.data!.createPet).toEqual({
      __typename: 'ValidationError',
      code: 'validation_failed',
      field: 'categoryId',
      message: 'categoryId must be a positive integer no greater than 9007199254740991.',
    });
  });

  it('rejects a status outside PetStatus before running, as a variable error', async () => {
    const response = await server.post(CREATE, {
      input: { name: randomName(), categoryId: 1, status: 'lost' },
    });
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });
});
