import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../../src/application/commands/api-keys.ts';
import { apiKeyGuard } from '../../../src/http/guard.ts';
import { systemClock } from '../../../src/shared/context.ts';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

/** createPet and placeOrder take REST's Idempotency-Key as an argument, with REST's rules and store. */

let server: GraphQLServer;
let auth: Record<string, string>;
beforeAll(async () => {
  server = await startGraphQLServer({ guard: (service) => apiKeyGuard(service.auth) });
  const { secret, position } = await issueApiKey(
    { store: server.testApp.store, clock: systemClock },
    { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 },
    { correlationId: randomUUID() },
  );
  await server.testApp.service.auth.keys.waitFor(position);
  auth = { authorization: `Bearer ${secret}` };
});
afterAll(() => server.close());

const CREATE =
  'mutation($input: NewPet!, $key: String) { createPet(input: $input, idempotencyKey: $key) { __typename ... on Pet { id name version } ... on Error { code message } ... on ValidationError { field } } }';
const PLACE =
  'mutation($petId: SafeInt!, $key: String) { placeOrder(input: { petId: $petId }, idempotencyKey: $key) { __typename ... on Order { id petId } ... on Error { code message } } }';

async function gql(query: string, variables: Record<string, unknown>) {
  const response = await server.post(query, variables, auth);
  expect(response.body.errors).toBeUndefined();
  return Object.values(response.body.data as Record<string, Record<string, unknown>>)[0]!;
}

const petCount = () => server.testApp.application.inventory();

describe('createPet(idempotencyKey)', () => {
  it('answers a retry with the pet the first request created, and creates nothing more', async () => {
    const key = randomUUID();
    const input = { name: 'Rex', categoryId: 1, status: 'available' };
    const first = await gql(CREATE, { input, key });
    const before = petCount();
    expect(await gql(CREATE, { input, key })).toEqual(first);
    expect(petCount()).toEqual(before);
  });

  it('answers the same key with another input with an IdempotencyKeyReusedError', async () => {
    const key = randomUUID();
    await gql(CREATE, { input: { name: 'Rex', categoryId: 1 }, key });
    expect(await gql(CREATE, { input: { name: 'Max', categoryId: 1 }, key })).toEqual({
      __typename: 'IdempotencyKeyReusedError',
      code: 'idempotency_key_reused',
      message:
        'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
    });
  });

  it('refuses a key that is not 1 to 255 visible ASCII characters, naming the argument', async () => {
    expect(await gql(CREATE, { input: { name: 'Rex', categoryId: 1 }, key: 'with space' })).toEqual({
      __typename: 'ValidationError',
      code: 'validation_failed',
      field: 'idempotencyKey',
      message: 'idempotencyKey must be 1 to 255 visible ASCII characters.',
    });
  });

  it('shares keys with REST: a GraphQL retry of a REST POST answers with the pet REST created', async () => {
    const key = randomUUID();
    const input = { name: 'Bella', categoryId: 2 };
    const rest = await fetch(`${server.origin}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(input),
    });
    const created = (await rest.json()) as { id: number };
    expect(await gql(CREATE, { input, key })).toEqual({
      __typename: 'Pet',
      id: created.id,
      name: 'Bella',
      version: 0,
    });
  });
});

describe('placeOrder(idempotencyKey)', () => {
  it('answers a retry with the order the first request placed, not PetNotAvailableError', async () => {
    const pet = await gql(CREATE, { input: { name: 'Rex', categoryId: 1, status: 'available' } });
    const key = randomUUID();
    const first = await gql(PLACE, { petId: pet.id, key });
    expect(first).toMatchObject({ __typename: 'Order', petId: pet.id });
    expect(await gql(PLACE, { petId: pet.id, key })).toEqual(first);
  });
});
