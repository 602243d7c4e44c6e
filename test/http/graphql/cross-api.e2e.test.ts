import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, randomCategoryId, randomName, startGraphQLServer } from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

const AUTH = { authorization: 'Bearer test' };

describe('one catalogue behind REST and GraphQL', () => {
  it('shows a pet created through GraphQL at once through REST, by id and in the list', async () => {
    const input = { name: randomName(), categoryId: Number.MAX_SAFE_INTEGER, status: 'sold' };
    const created = await server.post(
      'mutation Create($input: NewPet!) { createPet(input: $input) { ... on Pet { id } } }',
      { input },
    );
    const { id } = created.body.data!.createPet as { id: number };

    const byId = await fetch(`${server.origin}/v1/pets/${id}`, { headers: AUTH });
    expect(await byId.json()).toEqual({ id, ...input });
    const list = await fetch(`${server.origin}/v1/pets?status=sold&limit=100`, { headers: AUTH });
    expect(await list.json()).toContainEqual({ id, ...input });
  });

  it('shows a pet created through REST at once through GraphQL, by id and in the connection', async () => {
    const input = { name: randomName(), categoryId: randomCategoryId(), status: 'available' };
    const created = await fetch(`${server.origin}/v1/pets`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const pet = (await created.json()) as { id: number };

    const byId = await server.post(
      'query One($id: SafeInt!) { pet(id: $id) { id name categoryId status } }',
      {
        id: pet.id,
      },
    );
    expect(byId.body).toEqual({ data: { pet: { id: pet.id, ...input } } });
    const list = await server.post('{ pets(first: 100, status: available) { edges { node { id } } } }');
    expect(list.body.data!.pets).toEqual({ edges: expect.arrayContaining([{ node: { id: pet.id } }]) });
  });
});
