import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer, subscribeOverSse } from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

const ERROR_FIELDS = '... on Error { __typename code message }';

const UPDATE = `mutation Update($id: SafeInt!, $input: PetPatch!, $expectedVersion: Int) {
  updatePet(id: $id, input: $input, expectedVersion: $expectedVersion) {
    ... on Pet { __typename id name categoryId status version }
    ... on ValidationError { field }
    ${ERROR_FIELDS}
  }
}`;

const REMOVE = `mutation Remove($id: SafeInt!, $expectedVersion: Int, $reason: String) {
  removePet(id: $id, expectedVersion: $expectedVersion, reason: $reason) {
    ... on RemovedPet { __typename id version }
    ${ERROR_FIELDS}
  }
}`;

async function createPet(status = 'available'): Promise<{ id: number }> {
  return (
    await server.testApp.application.createPet({ name: 'Rex', categoryId: 1, status }, { correlationId: 't' })
  ).pet;
}

const update = async (variables: Record<string, unknown>) =>
  (await server.post(UPDATE, variables)).body.data!.updatePet as Record<string, unknown>;
const removePet = async (variables: Record<string, unknown>) =>
  (await server.post(REMOVE, variables)).body.data!.removePet as Record<string, unknown>;

describe('Mutation.updatePet', () => {
  it('changes a pet through the same handler as REST: the pet with its new version', async () => {
    const { id } = await createPet();
    expect(await update({ id, input: { name: 'Max', status: 'pending' } })).toEqual({
      __typename: 'Pet',
      id,
      name: 'Max',
      categoryId: 1,
      status: 'pending',
      version: 2,
    });
    expect((await server.testApp.store.readStream(`pet-${id}`)).map((event) => event.type)).toEqual([
      'PetCreated',
      'PetRenamed',
      'PetStatusChanged',
    ]);
  });

  it('takes a field given as null as left out, as GraphQL clients send unset fields: nothing changes', async () => {
    const { id } = await createPet();
    expect(await update({ id, input: { name: null, categoryId: null, status: null } })).toEqual({
      __typename: 'Pet',
      id,
      name: 'Rex',
      categoryId: 1,
      status: 'available',
      version: 0,
    });
    expect(await server.testApp.store.readStream(`pet-${id}`)).toHaveLength(1);
  });

  it('returns a ValidationError naming the field, by the rules of REST', async () => {
    const { id } = await createPet();
    expect(await update({ id, input: { name: ' ' } })).toEqual({
      __typename: 'ValidationError',
      code: 'validation_failed',
      field: 'name',
      message: 'name must not be empty.',
    });
  });

  it('returns an InvalidStatusTransitionError for a forbidden change', async () => {
    const { id } = await createPet('sold');
    expect(await update({ id, input: { status: 'pending' } })).toEqual({
      __typename: 'InvalidStatusTransitionError',
      code: 'invalid_status_transition',
      message: 'A pet that is sold cannot become pending; it is final.',
    });
  });

  it('returns a PreconditionFailedError when expectedVersion is stale, and changes nothing', async () => {
    const { id } = await createPet();
    await update({ id, input: { name: 'Max' } });
    expect(await update({ id, input: { name: 'Late' }, expectedVersion: 0 })).toEqual({
      __typename: 'PreconditionFailedError',
      code: 'precondition_failed',
      message: `Pet ${id} is at version 1, not 0: read it again, then retry the change.`,
    });
    expect(server.testApp.application.getPet(id).name).toBe('Max');
  });

  it('returns a NotFoundError for a pet that never existed', async () => {
    expect(await update({ id: 987654321, input: { name: 'Max' } })).toEqual({
      __typename: 'NotFoundError',
      code: 'not_found',
      message: 'No pet has the id 987654321.',
    });
  });
});

describe('Mutation.removePet', () => {
  it('removes a pet: the id and the version of its removal; then pet(id) is null with pet_removed', async () => {
    const { id } = await createPet();
    expect(await removePet({ id, reason: 'adopted' })).toEqual({ __typename: 'RemovedPet', id, version: 1 });
    const read = await server.post('query One($id: SafeInt!) { pet(id: $id) { id } }', { id });
    expect(read.body.data).toEqual({ pet: null });
    expect(read.body.errors?.[0]?.extensions).toEqual({ code: 'pet_removed' });
  });

  it('returns a PetRemovedError for a pet removed already', async () => {
    const { id } = await createPet();
    await removePet({ id });
    expect(await removePet({ id })).toMatchObject({ __typename: 'PetRemovedError', code: 'pet_removed' });
  });

  it('keeps a removed pet out of pets()', async () => {
    const { id } = await createPet();
    await removePet({ id });
    const page = await server.post('{ pets(first: 100) { edges { node { id } } } }');
    const ids = (page.body.data!.pets as { edges: { node: { id: number } }[] }).edges.map(
      (edge) => edge.node.id,
    );
    expect(ids).not.toContain(id);
  });
});

/** The store position of each event of a pet's stream, as subscriptions report it in `extensions`. */
async function positionsOf(id: number): Promise<{ storePosition: string }[]> {
  const events = await server.testApp.store.readStream(`pet-${id}`);
  return events.map((event) => ({ storePosition: String(event.position) }));
}

describe('Subscription.petChanged', () => {
  it('delivers a pet’s creation, changes and removal in store order, each with its store position', async () => {
    let id = 0;
    const events = await subscribeOverSse(
      server.endpoint,
      'subscription { petChanged { type id version pet { name status } } }',
      4,
      async () => {
        id = (await createPet()).id;
        await update({ id, input: { name: 'Max', status: 'pending' } });
        await removePet({ id });
      },
    );
    const [created, renamed, pending, removed] = await positionsOf(id);
    expect(events).toEqual([
      {
        data: { petChanged: { type: 'created', id, version: 0, pet: { name: 'Rex', status: 'available' } } },
        extensions: created,
      },
      {
        data: { petChanged: { type: 'updated', id, version: 1, pet: { name: 'Max', status: 'available' } } },
        extensions: renamed,
      },
      {
        data: { petChanged: { type: 'updated', id, version: 2, pet: { name: 'Max', status: 'pending' } } },
        extensions: pending,
      },
      { data: { petChanged: { type: 'removed', id, version: 3, pet: null } }, extensions: removed },
    ]);
  });

  it('resumes after a store position: the changes since from the store, then live ones, none twice', async () => {
    const { id } = await createPet();
    await update({ id, input: { name: 'Max' } });
    await update({ id, input: { status: 'sold' } });
    const [created, renamed, sold] = await positionsOf(id);
    const events = await subscribeOverSse(
      server.endpoint,
      `subscription { petChanged(after: "${created!.storePosition}") { type id version pet { name status } } }`,
      3,
      async () => {
        await removePet({ id });
      },
    );
    const removed = (await positionsOf(id))[3];
    expect(events).toEqual([
      {
        data: { petChanged: { type: 'updated', id, version: 1, pet: { name: 'Max', status: 'available' } } },
        extensions: renamed,
      },
      {
        data: { petChanged: { type: 'updated', id, version: 2, pet: { name: 'Max', status: 'sold' } } },
        extensions: sold,
      },
      { data: { petChanged: { type: 'removed', id, version: 3, pet: null } }, extensions: removed },
    ]);
  });

  it('refuses an after that is not a store position', async () => {
    const response = await server.post('subscription { petChanged(after: "yesterday") { id } }');
    expect(response.body.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([
      ['after must be a store position: decimal digits.', 'validation_failed'],
    ]);
  });

  it('refuses an after past the store’s last event, which this store never gave', async () => {
    const head = (await server.testApp.store.headPosition()) ?? 0n;
    const response = await server.post(`subscription { petChanged(after: "${head + 1000n}") { id } }`);
    expect(response.body.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([
      [
        expect.stringMatching(new RegExp(`^after ${head + 1000n} is past the store's last event \\(\\d+\\)`)),
        'validation_failed',
      ],
    ]);
  });
});
