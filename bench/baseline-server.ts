import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';

/**
 * The baseline: Fastify 5 (the service's HTTP stack) serving, from memory, the very bytes the pet
 * store returned for each scenario, with no auth, rate limit, store or logging. Each scenario's
 * figure is reported as a ratio to this server's figure for the same requests in the same run.
 *
 * A second server in the same process, the ceiling, serves the same bytes with the response
 * headers the pet store sent for them (X-Request-Id, the rate-limit set, Link, ETag…): what a
 * read costs on this stack with the interface's headers and nothing else, so that a ratio target
 * can be told apart from what the headers alone already take.
 *
 * Usage: node bench/baseline-server.ts <bodies.json>; prints "baseline listening <url> <ceiling url>".
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
  /** The pet store's response headers for some of the bodies, which the ceiling server adds. */
  readonly headers: Partial<Record<BodyName, Record<string, string>>>;
};

export type BodyName = Exclude<keyof BaselineBodies, 'headers'>;

const bodies = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as BaselineBodies;
const JSON_TYPE = 'application/json; charset=utf-8';

function serve(app: FastifyInstance, withHeaders: boolean): FastifyInstance {
  const answer = (reply: FastifyReply, name: BodyName, code = 200) => {
    const headers = withHeaders ? bodies.headers[name] : undefined;
    if (headers !== undefined) reply.headers(headers);
    return reply.code(code).type(JSON_TYPE).send(bodies[name]);
  };
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/v1/pets', async (request, reply) => {
    const { limit } = request.query as { limit?: string };
    return answer(reply, limit === '100' ? 'listAvailable100' : 'list20');
  });
  app.get('/v1/pets/:petId', async (_request, reply) => answer(reply, 'pet'));
  app.get('/v1/pets/:petId/history', async (_request, reply) => answer(reply, 'history'));
  // The body is parsed like the service parses it, then the stored answer is sent.
  app.post('/v1/pets', async (_request, reply) => answer(reply, 'created', 201));
  app.patch('/v1/pets/:petId', async (_request, reply) => answer(reply, 'renamed'));
  app.post('/v1/store/orders', async (_request, reply) => answer(reply, 'ordered', 201));
  app.post('/v1/store/orders/:orderId/cancel', async (_request, reply) => answer(reply, 'cancelled'));
  app.post('/graphql', async (_request, reply) => answer(reply, 'graphql'));
  return app;
}

const bare = serve(Fastify({ logger: false }), false);
const ceiling = serve(Fastify({ logger: false }), true);
const url = await bare.listen({ port: 0, host: '127.0.0.1' });
const ceilingUrl = await ceiling.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`baseline listening ${url} ${ceilingUrl}\n`);
process.once('SIGTERM', () => void Promise.all([bare.close(), ceiling.close()]).then(() => process.exit(0)));
