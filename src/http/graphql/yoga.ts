import { useGraphQlJit } from '@envelop/graphql-jit';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { type DocumentNode, Kind } from 'graphql';
import type { CompilerOptions } from 'graphql-jit';
import { createYoga, type Plugin, type YogaLogger } from 'graphql-yoga';
import type { Application } from '../../application/index.ts';
import { requestContext } from '../request-context.ts';
import type { GraphQLContext } from './builder.ts';
import { isUnexpected, toClientError, useErrorTranslation } from './error-translation.ts';
import { useGetParams } from './get-params.ts';
import { hardeningPlugins } from './hardening.ts';
import { useOperationNameType, useOperationResolution } from './operation-name.ts';
import { usePersistedQueryRefusal } from './persisted-queries.ts';
import { useFeedReadLimit } from './feed-reads.ts';
import { useMutationFieldLimits } from './mutation-fields.ts';
import { queryTextCache } from './query-text-cache.ts';
import { useScopeCacheRelease } from './scope-cache.ts';
import { useStorePosition } from './store-position.ts';
import { useStreamSlots } from './stream-slots.ts';
import { schema } from './index.ts';

export const GRAPHQL_PATH = '/graphql';

export type ServerContext = { req: FastifyRequest; reply: FastifyReply };

export type YogaOptions = {
  readonly application: Application;
  readonly introspection: boolean;
  readonly logger: FastifyBaseLogger;
  /** Aborted when the server starts closing (see `GraphQLContext.closing`). */
  readonly closing: AbortSignal;
  /** Plugins that only observe (metrics, tracing), run after the others. */
  readonly observers?: readonly Plugin[];
};

/** The Yoga server for one application; Fastify routes requests to it (see `plugin.ts`). */
export function createPetStoreYoga(options: YogaOptions) {
  const createContext = graphqlContext(options);
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // The guard rate-limits per HTTP request, so one request must be one operation.
    batching: false,
    // GraphiQL is served by its own public route (see `../dev-pages/graphiql.ts`): a browser cannot send the
    // bearer key when it opens a page.
    graphiql: false,
    landingPage: false,
    // Cross-origin policy belongs to the shared HTTP stack, as for REST; none is set today.
    cors: false,
    multipart: false,
    maskedErrors: { maskError: (error) => toClientError(error) },
    // Bounded by the length of the texts, not their number (see query-text-cache.ts). Validation
    // results are kept per document object, so they go with the documents.
    parserAndValidationCache: { documentCache: queryTextCache(), errorCache: queryTextCache() },
    logging: yogaLogger(options.logger),
    context: ({ req, reply }) => createContext(req, reply),
    // These run on both paths. On the fast path (`fast-path.ts`) a plugin sees the request as a
    // `FastPathRequest`: its method and headers, no url, body or signal. A compiled operation
    // (`compiled-operations.ts`) runs without them: what they do per request is repeated there, in
    // this order.
    plugins: [
      useGetParams(),
      useOperationNameType(),
      usePersistedQueryRefusal(),
      useOperationResolution(),
      ...hardeningPlugins({ introspection: options.introspection }),
      useMutationFieldLimits(),
      useStreamSlots(),
      useFeedReadLimit(),
      useStorePosition(),
      useScopeCacheRelease(),
      useGraphQlJit(JIT_COMPILER_OPTIONS, {
        // The operation still runs, on graphql-js; a document graphql-jit cannot compile is worth a look.
        onError: (failure) =>
          options.logger.warn({ errors: failure.errors }, 'graphql-jit could not compile a document'),
        enableIf: ({ document }) => hasOneOperation(document) && !isSubscription(document),
      }),
      useErrorTranslation(),
      ...(options.observers ?? []),
    ],
  });
}

export type PetStoreYoga = ReturnType<typeof createPetStoreYoga>;

/** graphql-jit's defaults, for Yoga's plugin and for compiled operations alike. */
export const JIT_COMPILER_OPTIONS: Partial<CompilerOptions> = Object.freeze({});

/** The context every operation gets, whichever path runs it. */
export function graphqlContext(options: Pick<YogaOptions, 'application' | 'closing'>) {
  const { application, closing } = options;
  return (req: FastifyRequest, reply: FastifyReply): GraphQLContext => ({
    application,
    requestContext: requestContext(req),
    req,
    reply,
    closing,
  });
}

/**
 * graphql-jit caches a compiled operation per document object, whatever the operation name, and
 * Yoga's parser cache hands out one object per query text: with two operations in a document,
 * every later request would run whichever compiled first (a GET could run a mutation). Documents
 * with several operations therefore run on graphql-js.
 */
export function hasOneOperation(document: DocumentNode): boolean {
  let operations = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION && ++operations > 1) return false;
  }
  return true;
}

/**
 * graphql-jit passes a subscription field the operation's variables as its arguments (inline
 * arguments such as `petChanged(after: "42")` never reach it): subscriptions run on graphql-js,
 * where a long-lived stream gains nothing from compiling anyway.
 */
function isSubscription(document: DocumentNode): boolean {
  return document.definitions.some(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation === 'subscription',
  );
}

function yogaLogger(logger: FastifyBaseLogger): YogaLogger {
  return {
    debug: () => {},
    info: () => {},
    warn: (...args: unknown[]) => logger.warn({ args }, 'graphql-yoga warning'),
    // Yoga logs every error its masking changed: a request it could not read (a body or a
    // parameter that is not JSON) is the client's mistake, not a fault of the service.
    error: (...args: unknown[]) =>
      isUnexpected(args[0])
        ? logger.error({ err: args[0] }, 'graphql-yoga error')
        : logger.debug({ err: args[0] }, 'graphql-yoga refused a request'),
  };
}
