import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operationCost } from '../../../src/http/graphql/cost.ts';
import { GRAPHQL_LIMITS } from '../../../src/http/graphql/hardening.ts';
import { parse } from 'graphql';
import { RequestCache } from '@pothos/plugin-scope-auth';
import { controlledClock, type GuardedApp, startGuardedApp } from '../../support/guarded-app.ts';

/** Requests answered by a compiled operation, in every app built here. */
let compiledRuns = 0;
vi.mock('../../../src/http/graphql/compiled-operations.ts', async (original) => {
  const actual = await original<typeof import('../../../src/http/graphql/compiled-operations.ts')>();
  return {
    ...actual,
    compiledOperations: (...args: Parameters<typeof actual.compiledOperations>) => {
      const operations = actual.compiledOperations(...args);
      return {
        ...operations,
        find: (...found: Parameters<typeof operations.find>) => {
          const operation = operations.find(...found);
          if (operation !== undefined) compiledRuns++;
          return operation;
        },
      };
    },
  };
});

let service: GuardedApp;
let reader: string;
let writer: string;
let ordersOnly: string;
beforeAll(async () => {
  // Introspection off, as in production: suggestions are hidden on both paths.
  service = await startGuardedApp({
    clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)),
    env: { GRAPHQL_INTROSPECTION: 'false' },
  });
  reader = (await service.issueKey({ plan: 'business', scopes: ['pets:read'] })).secret;
  writer = (await service.issueKey({ plan: 'business', scopes: ['pets:read', 'pets:write'] })).secret;
  ordersOnly = (await service.issueKey({ plan: 'business', scopes: ['orders:read'] })).secret;
  await service.application.createPet(
    { name: 'Rex', categoryId: 7, status: 'sold' },
    { correlationId: 'seed' },
  );
});
afterAll(() => service.close());

/** A query text never sent before (a comment changes the text, not the document). */
const fresh = (query: string) => `${query} # ${randomUUID()}`;

async function post(secret: string, body: Record<string, unknown>, accept?: string) {
  const before = compiledRuns;
  const response = await service.send(secret, 'POST', '/graphql', body, accept ? { accept } : {});
  return {
    compiled: compiledRuns - before === 1,
    status: response.statusCode,
    type: response.headers['content-type'],
    authenticate: response.headers['www-authenticate'],
    body: response.body,
  };
}

/** The same request twice: through Yoga's pipeline the first time, compiled the second. */
async function twice(secret: string, body: Record<string, unknown>, accept?: string) {
  const first = await post(secret, body, accept);
  const second = await post(secret, body, accept);
  return { first, second };
}

describe('compiled operations', () => {
  it('answer a query text seen before with the same bytes as Yoga’s pipeline', async () => {
    const { first, second } = await twice(reader, {
      query: fresh('{ pets(first: 20) { edges { node { id name categoryId status } } } }'),
    });
    expect(first.compiled).toBe(false);
    expect(second).toEqual({ ...first, compiled: true });
    expect(second.body).toBe(
      '{"data":{"pets":{"edges":[{"node":{"id":1,"name":"Rex","categoryId":7,"status":"sold"}}]}}}',
    );
  });

  it('drop the scope cache of each request once it is answered, on both paths', async () => {
    // Left in Pothos's WeakMap until a full collection, dead contexts made every young-generation
    // collection slower (see src/http/graphql/scope-cache.ts).
    const cleared = vi.spyOn(RequestCache, 'clearForContext');
    try {
      const { first, second } = await twice(reader, { query: fresh('{ pet(id: 1) { id } }') });
      expect([first.compiled, second.compiled]).toEqual([false, true]);
      expect(cleared).toHaveBeenCalledTimes(2);
      const [[firstContext], [secondContext]] = cleared.mock.calls as [[object], [object]];
      expect(firstContext).not.toBe(secondContext);
      expect(firstContext).toHaveProperty('requestContext');
      expect(secondContext).toHaveProperty('requestContext');
    } finally {
      cleared.mockRestore();
    }
  });

  it('render a resolver’s error as the pipeline does', async () => {
    const { first, second } = await twice(reader, { query: fresh('{ pet(id: 99) { id } }') });
    expect(second).toEqual({ ...first, compiled: true });
    expect(second.body).toBe(
      '{"data":{"pet":null},"errors":[{"message":"No pet has the id 99.","path":["pet"],"extensions":{"code":"not_found"}}]}',
    );
  });

  it('refuse a field outside the key’s scopes with the same error and WWW-Authenticate', async () => {
    const { first, second } = await twice(ordersOnly, { query: fresh('{ pet(id: 1) { id } }') });
    expect(second).toEqual({ ...first, compiled: true });
    expect(JSON.parse(second.body).errors[0].extensions).toEqual({ code: 'insufficient_scope' });
    expect(second.authenticate).toContain('insufficient_scope');
  });

  it('refuse variables that cannot be coerced with the same status, without suggestions', async () => {
    const query = fresh('query ($status: PetStatus) { pets(status: $status) { edges { node { id } } } }');
    const { first, second } = await twice(
      reader,
      { query, variables: { status: 'availabl' } },
      'application/graphql-response+json',
    );
    expect(second).toEqual({ ...first, compiled: true });
    expect(second.status).toBe(400);
    expect(second.body).not.toContain('Did you mean');
  });

  it('leave a request over the cost limit to the pipeline, which refuses it', async () => {
    const selection =
      'edges { node { id name categoryId status version } cursor } pageInfo { hasNextPage endCursor }';
    const query = fresh(
      `query ($n: Int) { a: pets(first: $n) { ${selection} } b: pets(first: $n) { ${selection} } }`,
    );
    expect(operationCost(parse(query), undefined, { n: 100 })).toBeGreaterThan(GRAPHQL_LIMITS.maxCost);
    await post(reader, { query, variables: { n: 1 } });
    const refused = await post(reader, { query, variables: { n: 100 } });
    expect(refused.compiled).toBe(false);
    expect(JSON.parse(refused.body).errors[0].message).toMatch(
      /^Query cost \d+ exceeds the limit of 5000\.$/,
    );
  });

  it('send a mutation’s store position in extensions and in X-Store-Position', async () => {
    const query = fresh(
      'mutation { createPet(input: { name: "Fast", categoryId: 3 }) { ... on Pet { name } } }',
    );
    await post(writer, { query });
    const before = compiledRuns;
    const response = await service.send(writer, 'POST', '/graphql', { query });
    expect(compiledRuns - before).toBe(1);
    const position = await service.store.headPosition();
    expect(response.headers['x-store-position']).toBe(String(position));
    expect(response.body).toBe(
      `{"data":{"createPet":{"name":"Fast"}},"extensions":{"storePosition":"${position!}"}}`,
    );
  });

  it('leave a mutation with two fields to the pipeline, which charges each field', async () => {
    const query = fresh(
      'mutation { a: createPet(input: { name: "A", categoryId: 3 }) { __typename } b: createPet(input: { name: "B", categoryId: 3 }) { __typename } }',
    );
    await post(writer, { query });
    expect((await post(writer, { query })).compiled).toBe(false);
  });

  it('leave another operation name to the pipeline, which refuses it', async () => {
    const query = fresh('query Pets { pets(first: 1) { edges { node { id } } } }');
    await post(reader, { query, operationName: 'Pets' });
    const other = await post(reader, { query, operationName: 'Other' });
    expect(other.compiled).toBe(false);
    expect(JSON.parse(other.body).errors[0].message).toBe(
      'The document holds no operation named "Other": it holds Pets.',
    );
  });
});
