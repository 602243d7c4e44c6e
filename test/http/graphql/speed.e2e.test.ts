import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

/**
 * The target, measured on loopback: a 20-pet list query through /graphql answers at least
 * 30% of the requests per second of a bare Fastify route sending the same bytes from memory.
 * Without the fast path this was about 8-20% here; with it, about 44%. Runs alternate so that a
 * noisy neighbour slows both sides alike.
 */
const QUERY = JSON.stringify({
  query: '{ pets(first: 20) { edges { node { id name categoryId status } } } }',
});
const SECONDS = 2;

let server: GraphQLServer;
let bare: FastifyInstance;
let bareUrl: string;
beforeAll(async () => {
  server = await startGraphQLServer();
  for (let i = 0; i < 20; i++) {
    await server.testApp.application.createPet(
      { name: `Pet ${i}`, categoryId: i + 1, status: 'available' },
      { correlationId: 'seed' },
    );
  }
  const response = await fetch(server.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: QUERY,
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  bare = Fastify();
  bare.post('/bare', (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(bytes);
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;
});
afterAll(async () => {
  await bare.close();
  await server.close();
});

async function requestsPerSecond(url: string): Promise<number> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: QUERY,
    connections: 20,
    duration: SECONDS,
  });
  expect(result.non2xx).toBe(0);
  return result.requests.average;
}

describe('GraphQL speed against a bare Fastify route', () => {
  it('serves the 20-pet list query at 30% or more of the bare route’s requests per second', async () => {
    await requestsPerSecond(bareUrl); // warm both up (JIT, caches)
    await requestsPerSecond(server.endpoint);
    const bareRuns = [await requestsPerSecond(bareUrl)];
    const graphqlRuns = [await requestsPerSecond(server.endpoint)];
    bareRuns.push(await requestsPerSecond(bareUrl));
    graphqlRuns.push(await requestsPerSecond(server.endpoint));
    const ratio = (graphqlRuns[0]! + graphqlRuns[1]!) / (bareRuns[0]! + bareRuns[1]!);
    console.log(JSON.stringify({ bareRuns, graphqlRuns, ratio }));
    expect(ratio).toBeGreaterThanOrEqual(0.3);
  }, 60_000);
});
