import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ExecutionResult, getOperationAST } from 'graphql';
import { isAsyncIterable, processRegularResult } from 'graphql-yoga';
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
 * status codes and error bodies stay exactly Yoga's (and the GraphQL-over-HTTP spec's).
 */
export function fastPath(yoga: PetStoreYoga) {
  return async function tryFastPath(
    request: FastifyRequest,
    reply: FastifyReply,
    body: string,
  ): Promise<boolean> {
    const mediaType = responseMediaType(request.headers.accept);
    if (mediaType === undefined) return false;
    const params = parseParams(body);
    if (params === undefined) return false;

    // Yoga's plugins read the HTTP method from `request` (no mutations over GET); this is a POST.
    const enveloped = yoga.getEnveloped({ req: request, reply, request: { method: 'POST' }, params });
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

/** The JSON media type to answer with, or undefined when the client asks for anything subtler. */
function responseMediaType(accept: string | undefined): string | undefined {
  if (accept === undefined || accept === '' || accept === '*/*') return 'application/json';
  if (accept.includes('q=') || accept.includes('event-stream') || accept.includes('multipart'))
    return undefined;
  const first = accept.split(',', 1)[0]!.split(';', 1)[0]!.trim();
  if (first === 'application/json' || first === '*/*') return 'application/json';
  if (first === 'application/graphql-response+json') return first;
  return undefined;
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
