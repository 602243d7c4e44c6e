import Fastify, { type FastifyInstance } from 'fastify';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGuard } from '../../../src/http/guard.ts';
import { graphqlRoutes } from '../../../src/http/graphql/plugin.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

/** GraphQL routes with an observer that counts the executions it sees. */
let testApp: TestApp;
let app: FastifyInstance;
let executions = 0;
beforeAll(async () => {
  testApp = await startTestApp();
  await testApp.application.createPet(
    { name: 'Rex', categoryId: 7, status: 'sold' },
    { correlationId: 'seed' },
  );
  const countExecutions: Plugin = { onExecute: () => void executions++ };
  app = Fastify();
  await app.register(openGuard);
  await app.register(graphqlRoutes, {
    application: testApp.application,
    config: { introspection: false },
    observers: [countExecutions],
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await testApp.close();
});

const QUERY = '{ pets(first: 20) { edges { node { id name categoryId status } } } }';

async function post(query: string) {
  const response = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ query }),
  });
  return { status: response.statusCode, body: response.body };
}

describe('GraphQL with observers', () => {
  it('runs a repeated query text through the pipeline, where the observer sees each run', async () => {
    const before = executions;
    await post(QUERY);
    await post(QUERY);
    await post(QUERY);
    expect(executions - before).toBe(3);
  });

  it('answers a repeated query text as the first time', async () => {
    await post(QUERY);
    expect(await post(QUERY)).toEqual({
      status: 200,
      body: '{"data":{"pets":{"edges":[{"node":{"id":1,"name":"Rex","categoryId":7,"status":"sold"}}]}}}',
    });
  });
});
