import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Plugin } from 'graphql-yoga';
import Negotiator from 'negotiator';
import type { Application } from '../../application/index.ts';
import type { Config } from '../../config.ts';
import { NotAcceptableError, ValidationError } from '../../shared/errors.ts';
import { endWhenStalled } from '../stalled-stream.ts';
import { decodeBodyText } from '../body-text.ts';
import { allowOnly } from '../four-oh-four.ts';
import { memberRefusal } from '../json-body.ts';
import { compiledOperations } from './compiled-operations.ts';
import { fastPath } from './fast-path.ts';
import { schema } from './index.ts';
import { createPetStoreYoga, GRAPHQL_PATH, type PetStoreYoga } from './yoga.ts';

export type GraphQLRoutesOptions = {
  readonly application: Application;
  readonly config: Config['graphql'];
  /** A subscription whose client takes nothing of it for this long is ended (see stalled-stream.ts). */
  readonly stallMs?: number;
  /** Envelop plugins that observe operations (metrics, tracing); they run on the fast path too. */
  readonly observers?: readonly Plugin[];
};

/**
 * Mounts GraphQL at /graphql (GET and POST, per GraphQL over HTTP) behind the same guard as REST.
 * Registered as an encapsulated plugin: the raw-string body parser below applies to /graphql only.
 */
export async function graphqlRoutes(app: FastifyInstance, options: GraphQLRoutesOptions): Promise<void> {
  // Fastify only closes idle connections, and a subscription's pings keep its stream busy: without
  // ending the streams first, app.close() would wait for every subscriber to leave.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  const yogaOptions = {
    application: options.application,
    introspection: options.config.introspection,
    logger: app.log,
    closing: closing.signal,
    observers: options.observers ?? [],
  };
  const yoga = createPetStoreYoga(yogaOptions);
  // Observers see operations through Yoga's pipeline, which compiled operations skip.
  const compiled = yogaOptions.observers.length === 0 ? compiledOperations(schema, yogaOptions) : undefined;
  const tryFastPath = fastPath(yoga, compiled);

  // Yoga answers malformed JSON in GraphQL's own shape, so it gets the body as text, unparsed. A
  // body that names a member twice, or `__proto__`, gets REST's 400, as every body does (Yoga would
  // keep the last of the two, and graphql-js answer `__proto__` as an unknown input field).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = decodeBodyText(body as Buffer, request.headers);
    } catch (error) {
      done(error as Error);
      return;
    }
    done(memberRefusal(text) ?? null, text);
  });

  app.route({
    method: ['GET', 'POST'],
    url: GRAPHQL_PATH,
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      rankAccept(request);
      if (request.method === 'GET') checkGetParams(request.query as Record<string, unknown>);
      if (request.method === 'POST' && (await tryFastPath(request, reply, request.body as string)))
        return reply;
      return handleWithYoga(yoga, request, reply, options.stallMs);
    },
  });
  allowOnly(app, GRAPHQL_PATH, ['GET', 'POST']);
}

/**
 * GET's parameters as a POST body's members: each at most once, as REST's query parameters (Yoga
 * would run the first `query` or `variables` of two, where a cache or firewall in front may have
 * read the other), and `variables` and `extensions` (JSON) with a POST body's checks.
 */
function checkGetParams(query: Record<string, unknown>): void {
  for (const name of GET_PARAMS) {
    if (Array.isArray(query[name])) throw new ValidationError(`${name} must be given at most once.`, name);
  }
  for (const name of ['variables', 'extensions']) {
    const text = query[name];
    if (typeof text !== 'string') continue;
    const refusal = memberRefusal(text);
    if (refusal !== undefined)
      throw new ValidationError(refusal.message.replace(/^The body/, `The ${name} parameter`), refusal.field);
  }
}

const GET_PARAMS = ['query', 'operationName', 'variables', 'extensions'];

/** What Yoga answers with: its result processors, of which only server-sent events stream a subscription. */
const ANSWERED =
  'application/graphql-response+json, application/json, multipart/mixed or text/event-stream for a ' +
  'query or mutation; text/event-stream for a subscription';

/**
 * Yoga reads Accept in the order it lists media types, whatever their q-values (of the JSON types,
 * it answers with the first listed), and the fast path answers as Yoga would. So a header with
 * q-values is replaced, before either reads it, by the types this endpoint answers with that it
 * accepts, best first: each type takes the q-value of the most specific range that names it (RFC
 * 9110 §12.5.1: `application/json;q=0, *\/*` refuses JSON), and one the client refuses (q=0) is left
 * out. A header that accepts none of them is a 406 here. Clients send one header again and again
 * (Apollo Client's has q=0.9 on every request): each is ranked once.
 */
function rankAccept(request: FastifyRequest): void {
  const accept = request.headers.accept;
  if (accept === undefined || !Q_VALUE.test(accept)) return;
  let ranked = rankedAccepts.get(accept);
  if (ranked === undefined) {
    const types = new Negotiator({ headers: { accept } }).mediaTypes(ANSWERABLE);
    // The bare types: Yoga skips a type whose charset is not utf-8, and these are the utf-8 ones.
    ranked = types.map((type) => type.split(';')[0]!).join(', ');
    if (rankedAccepts.size >= RANKED_ACCEPTS_MAX) rankedAccepts.clear();
    rankedAccepts.set(accept, ranked);
  }
  if (ranked === '') throw new NotAcceptableError(ANSWERED);
  request.raw.headers.accept = ranked;
}

/** A q parameter, in any case and spacing (`Q=0`, `q = 0.5`). */
const Q_VALUE = /;\s*q\s*=/i;

/**
 * What /graphql answers with; a client's range that names a charset matches only utf-8. Between
 * types a client ranks alike (`*\/*`), the first here: application/json, as Yoga answers `*\/*`.
 */
const ANSWERABLE = [
  'application/json; charset=utf-8',
  'application/graphql-response+json; charset=utf-8',
  'multipart/mixed',
  'text/event-stream; charset=utf-8',
];

const rankedAccepts = new Map<string, string>();
/** Headers remembered; past this many, the memory starts again from empty. */
const RANKED_ACCEPTS_MAX = 1000;

/**
 * Yoga's full handler: GET, server-sent events, and every request the fast path declines. Yoga is
 * handed the request without Fastify's parsed `query`: given one, its adapter (whatwg-node's
 * normalizeNodeRequest) sets each parameter again into the URL, which already holds them all, and
 * each set serialises the whole query again: a GET with 1,000 parameters cost 140 ms of CPU.
 */
async function handleWithYoga(
  yoga: PetStoreYoga,
  request: FastifyRequest,
  reply: FastifyReply,
  stallMs: number | undefined,
): Promise<FastifyReply> {
  const withoutQuery = Object.create(request, { query: { value: undefined } }) as FastifyRequest;
  const response = await yoga.handleNodeRequestAndResponse(withoutQuery, reply, { req: request, reply });
  // Yoga answers an Accept it cannot satisfy with an empty 406; ours has the Error body.
  if (response.status === 406) throw new NotAcceptableError(ANSWERED);
  reply.code(response.status);
  response.headers.forEach((value, key) => {
    // Yoga marks its event streams `Content-Encoding: none`, which names no content coding (RFC
    // 9110 §8.4.1): a strict client or proxy would refuse a body in a coding it does not know. The
    // names keep the case Yoga gave them.
    if (key.toLowerCase() !== 'content-encoding' || value !== 'none') reply.header(key, value);
  });
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // nginx: pass each event on at once, as the REST feed asks (`../rest/audit-events.ts`).
    reply.header('X-Accel-Buffering', 'no');
    if (stallMs !== undefined) endWhenStalled(reply.raw, stallMs, request.log);
  }
  return reply.send(response.body);
}
