import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/**
 * The baseline: Fastify 5 (the service's HTTP stack) serving, from memory, the very bytes the pet
 * store returned for each scenario, with no auth, rate limit, store or logging. Each scenario's
 * figure is reported as a ratio to this server's figure for the same requests in the same run.
 *
 * Usage: node bench/baseline-server.ts <bodies.json>; prints "baseline listening <url>".
 */

export type BaselineBodies = {
  readonly list20: string;
  readonly listAvailable100: string;
  readonly pet: string;
  readonly history: string;
  readonly created: string;
  readonly renamed: string;
  readonly ordered: string;
  readonly cancelled: string;
  readonly graphql: string;
};

const bodies = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as BaselineBodies;
const JSON_TYPE = 'application/json; charset=utf-8';

const app = Fastify({ logger: false });
app.get('/health', async () => ({ status: 'ok' }));
app.get('/v1/pets', async (request, reply) => {
  const { limit } = request.query as { limit?: string };
  return reply.type(JSON_TYPE).send(limit === '100' ? bodies.listAvailable100 : bodies.list20);
});
app.get('/v1/pets/:petId', async (_request, reply) => reply.type(JSON_TYPE).send(bodies.pet));
app.get('/v1/pets/:petId/history', async (_request, reply) => reply.type(JSON_TYPE).send(bodies.history));
// The body is parsed like the service parses it, then the stored answer is sent.
app.post('/v1/pets', async (_request, reply) => reply.code(201).type(JSON_TYPE).send(bodies.created));
app.patch('/v1/pets/:petId', async (_request, reply) => reply.type(JSON_TYPE).send(bodies.renamed));
app.post('/v1/store/orders', async (_request, reply) => reply.code(201).type(JSON_TYPE).send(bodies.ordered));
app.post('/v1/store/orders/:orderId/cancel', async (_request, reply) =>
  reply.type(JSON_TYPE).send(bodies.cancelled),
);
app.post('/graphql', async (_request, reply) => reply.type(JSON_TYPE).send(bodies.graphql));

const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`baseline listening ${url}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
