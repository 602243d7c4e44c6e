import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../../../src/domain/pets.ts';
import { type GraphQLServer, randomCategoryId, randomName, startGraphQLServer } from './graphql-server.ts';

const PAGE = `query Page($first: Int, $after: String, $status: PetStatus) {
  pets(first: $first, after: $after, status: $status) {
    edges { cursor node { id name categoryId status version } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

type Page = {
  edges: { cursor: string; node: Pet }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
};

let server: GraphQLServer;
let created: Pet[];
beforeAll(async () => {
  server = await startGraphQLServer();
  created = [];
  for (let i = 0; i < 25; i++) {
    const status = (['available', 'pending', 'sold'] as const)[i % 3];
    const input = { name: randomName(), categoryId: randomCategoryId(), status };
    created.push((await server.testApp.application.createPet(input, { correlationId: 'seed' })).pet);
  }
});
afterAll(() => server.close());

async function page(variables: Record<string, unknown>): Promise<Page> {
  const response = await server.post(PAGE, variables);
  expect(response.body.errors).toBeUndefined();
  return response.body.data!.pets as Page;
}

describe('Query.pets', () => {
  it('returns the first 20 pets in ascending id order when first is not given', async () => {
    const result = await page({});
    expect(result.edges.map((edge) => edge.node)).toEqual(created.slice(0, 20));
    expect(result.pageInfo.hasNextPage).toBe(true);
  });

  it('pages through every pet with endCursor, never skipping or repeating one', async () => {
    const seen: Pet[] = [];
    let after: string | null = null;
    for (;;) {
      const result: Page = await page({ first: 7, after });
      seen.push(...result.edges.map((edge) => edge.node));
      if (!result.pageInfo.hasNextPage) break;
      after = result.pageInfo.endCursor;
    }
    expect(seen).toEqual(created);
  });

  it('gives each edge a cursor that continues right after that edge', async () => {
    const first = await page({ first: 3 });
    const next = await page({ first: 1, after: first.edges[1]!.cursor });
    expect(next.edges.map((edge) => edge.node)).toEqual([created[2]]);
    expect(first.pageInfo.startCursor).toBe(first.edges[0]!.cursor);
    expect(first.pageInfo.endCursor).toBe(first.edges[2]!.cursor);
  });

  it('filters by status', async () => {
    const result = await page({ first: 100, status: 'pending' });
    expect(result.edges.map((edge) => edge.node)).toEqual(created.filter((pet) => pet.status === 'pending'));
  });

  it('accepts first = 100, the REST maximum', async () => {
    const result = await page({ first: 100 });
    expect(result.edges).toHaveLength(25);
    expect(result.pageInfo.hasNextPage).toBe(false);
  });

  it.each([0, 101, -1])(
    'rejects first = %i with the REST rule: validation_failed naming first',
    async (first) => {
      const response = await server.post(PAGE, { first });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        data: { pets: null },
        errors: [
          {
            message: 'first must be an integer from 1 to 100.',
            path: ['pets'],
            extensions: { code: 'validation_failed', field: 'first' },
          },
        ],
      });
    },
  );

  it('rejects a cursor it did not issue, naming after', async () => {
    const response = await server.post(PAGE, { after: 'not-a-cursor' });
    expect(response.body.errors?.[0]?.extensions).toEqual({ code: 'validation_failed', field: 'after' });
  });
});

describe('Query.pet', () => {
  it('returns one pet by id', async () => {
    const pet = created[4]!;
    const response = await server.post(
      'query One($id: SafeInt!) { pet(id: $id) { id name categoryId status version } }',
      {
        id: pet.id,
      },
    );
    expect(response.body).toEqual({ data: { pet } });
  });

  it('answers null with a not_found error for an id no pet has', async () => {
    const response = await server.post('{ pet(id: 999999) { id } }');
    expect(response.body).toEqual({
      data: { pet: null },
      errors: [
        {
          message: 'No pet has the id 999999.',
          path: ['pet'],
          extensions: { code: 'not_found' },
        },
      ],
    });
  });

  it('rejects id 0 with the REST rule: validation_failed naming id', async () => {
    const response = await server.post('{ pet(id: 0) { id } }');
    expect(response.body).toEqual({
      data: { pet: null },
      errors: [
        {
          message: 'id must be an integer from 1 to 9007199254740991.',
          path: ['pet'],
          extensions: { code: 'validation_failed', field: 'id' },
        },
      ],
    });
  });
});
