import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ExecutionResult, getOperationAST } from 'graphql';
import { isAsyncIterable, processRegularResult } from 'graphql-yoga';
import { isPromise } from '../../shared/maybe-promise.ts';
import type { CompiledOperations } from './compiled-operations.ts';
import type { PetStoreYoga } from './yoga.ts';

type GraphQLParams = {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
};

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);

/**
 * The common case, a POST of a JSON GraphQL request that parses, validates and is a query or a
 * mutation, runs Yoga's own envelop pipeline (the same plugins: caches, limits, graphql-jit,
 * error translation and masking) and replies through Fastify directly. That skips building a
 * Fetch Request and Response per request, where most of the time went. Anything else, including
 * every failure before execution, returns `false` untouched and goes to Yoga's full handler, so
 * status codes and error bodies stay exactly Yoga's (and the GraphQL-over-HTTP spec's). A query
 * text seen before skips the pipeline too, as a compiled operation (see `compiled-operations.ts`).
 */
export function fastPath(yoga: PetStoreYoga, compiled?: CompiledOperations) {
  return async function tryFastPath(
    request: FastifyRequest,
    reply: FastifyReply,
    body: string,
  ): Promise<boolean> {
    const mediaType = responseMediaType(request.headers.accept);
    if (mediaType === undefined) return false;
    const params = parseParams(body);
    if (params === undefined) return false;

    const known = compiled?.find(params.query, params.operationName, params.variables);
    if (known !== undefined) {
      const result = known.run(request, reply, params.variables);
      await send(yoga, reply, isPromise(result) ? await result : result, mediaType);
      return true;
    }

    const enveloped = yoga.getEnveloped({
      req: request,
      reply,
      request: new FastPathRequest(request.headers),
      params,
    });
    let document;
    try {
      document = enveloped.parse(params.query);
      // The armor limits throw rather than return their errors.
      if (enveloped.validate(enveloped.schema, document).length > 0) return false;
    } catch {
      return false;
    }
    const operation = getOperationAST(document, params.operationName ?? undefined);
    if (operation === null || operation === undefined || operation.operation === 'subscription') return false;
    compiled?.remember(params.query, document);

    const contextValue = await enveloped.contextFactory();
    const result = await enveloped.execute({
      schema: enveloped.schema,
      document,
      contextValue,
      variableValues: params.variables ?? null,
      operationName: params.operationName ?? null,
    });
    if (isAsyncIterable(result)) throw new Error('An incremental result reached the fast path.');
    await send(
      yoga,
      reply,
      result as ExecutionResult & { stringify?: (value: unknown) => string },
      mediaType,
    );
    return true;
  };
}

/**
 * What Yoga's envelop plugins get as the Fetch `request` on the fast path: the method (Yoga refuses
 * mutations over GET), and the headers through `get` and `has`. No url, body (already parsed into
 * `params`) or signal: a plugin that needs one of those must grow this, or the plugin list must
 * say the fast path declines what it handles (see `yoga.ts`).
 */
export class FastPathRequest {
  readonly method = 'POST';
  readonly #headers: IncomingHttpHeaders;

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  /** Built when a plugin reads it: none of ours does. */
  get headers(): Pick<Headers, 'get' | 'has'> {
    const headers = this.#headers;
    return {
      get: (name) => {
        const value = headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
      has: (name) => headers[name.toLowerCase()] !== undefined,
    };
  }
}

async function send(
  yoga: PetStoreYoga,
  reply: FastifyReply,
  result: ExecutionResult & { stringify?: (value: unknown) => string },
  mediaType: string,
): Promise<void> {
  if (result.errors === undefined && result.extensions === undefined) {
    const json = result.stringify === undefined ? JSON.stringify(result) : result.stringify(result);
    await reply.type(`${mediaType}; charset=utf-8`).send(json);
    return;
  }
  // Errors are rare: let Yoga choose the status and strip its internal extensions.
  const response = await processRegularResult(result, yoga.fetchAPI, mediaType);
  reply.code(response.status);
  response.headers.forEach((value, key) => reply.header(key, value));
  await reply.send(await response.text());
}

const JSON_TYPES = new Set(['application/graphql-response+json', 'application/json']);

/**
 * The JSON media type to answer with: the acceptable one ranked first by q-value, then by order
 * (Apollo Client sends `application/graphql-response+json,application/json;q=0.9`; urql lists
 * `text/event-stream` and `multipart/mixed` after its JSON types, which a query never needs).
 * Undefined leaves the request to Yoga: no JSON type acceptable, or a header Yoga would read
 * differently (it ignores q-values and takes the first JSON type listed), so the answer never
 * depends on the path taken. The route has put a header with q-values in their order already
 * (`rankAccept` in plugin.ts), so in the app the two readings agree.
 */
function responseMediaType(accept: string | undefined): string | undefined {
  if (accept === undefined || accept === '' || accept === '*/*') return 'application/json';
  let firstListed: string | undefined;
  let best: string | undefined;
  let bestQuality = 0;
  for (const entry of accept.toLowerCase().split(',')) {
    const [range = '', ...parameters] = entry.split(';').map((part) => part.trim());
    const type = JSON_TYPES.has(range)
      ? range
      : range === '*/*' || range === 'application/*'
        ? 'application/json'
        : undefined;
    if (type === undefined) continue;
    let quality = 1;
    let utf8 = true;
    for (const parameter of parameters) {
      if (parameter.startsWith('q=')) quality = Number(parameter.slice(2));
      else if (parameter.startsWith('charset=')) utf8 = parameter === 'charset=utf-8';
    }
    if (!utf8) continue; // Yoga skips such an entry too
    firstListed ??= type;
    if (quality > bestQuality) {
      best = type;
      bestQuality = quality;
    }
  }
  return best === firstListed ? best : undefined;
}

function parseParams(body: string): GraphQLParams | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObject(value) || typeof value.query !== 'string') return undefined;
  for (const key in value) if (!PARAM_NAMES.has(key)) return undefined;
  if (!isOptional(value.variables, isObject) || !isOptional(value.extensions, isObject)) return undefined;
  if (!isOptional(value.operationName, (name) => typeof name === 'string')) return undefined;
  return value as GraphQLParams;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOptional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || check(value);
}
