import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  LogController,
} from 'fastify';
import type { Plugin as GraphQLPlugin } from 'graphql-yoga';
import type { Application } from '../application/index.ts';
import type { Config } from '../config.ts';
import { proxyTrust } from './client-address.ts';
import {
  clientErrorHandler,
  hostFault,
  refuseConnect,
  refuseUnmetExpectations,
  transferCodingFault,
  versionFault,
} from './client-errors.ts';
import { parseQueryString, queryFault } from './query-string.ts';
import { errorHandler } from './error-handler.ts';
import { frameworkErrorHandler, listenForUnroutedAnswers, MAX_PARAM_LENGTH } from './framework-errors.ts';
import { notFoundHandler, routeEveryMethod } from './four-oh-four.ts';
import { parseJsonBody } from './json-body.ts';
import { accessLog } from './access-log.ts';
import { devPages } from './dev-pages/index.ts';
import { graphqlRoutes } from './graphql/plugin.ts';
import type { Guard } from './guard.ts';
import { alwaysReady, healthRoutes, type ReadinessCheck } from './health.ts';
import { openApiRoute } from './openapi.ts';
import { petRoutes } from './rest/pets.ts';
import { storeRoutes } from './rest/store.ts';
import { historyRoutes } from './rest/history.ts';
import { adminRoutes } from './rest/admin.ts';
import { DEFAULT_STALL_MS } from './stalled-stream.ts';
import { DEFAULT_STREAMS_PER_KEY, streamSlots } from './stream-slots.ts';
import { auditEventRoutes } from './rest/audit-events.ts';
import { changeStreamRoutes } from './rest/change-streams.ts';
import { storePositions } from './store-position.ts';
import { lazyRequestLogger } from './request-logger.ts';
import { closeConnectionsOnClose, refuseWhileShuttingDown } from './shutting-down.ts';
import { closeGentlyAfterUnreadBodies } from './unread-body.ts';
import { requestId } from './request-id.ts';
import { closeSilentConnections, DEFAULT_REQUEST_TIMEOUT_MS, requestTimeouts } from './request-timeouts.ts';

export type AppDependencies = {
  readonly config: Pick<Config, 'bodyLimitBytes' | 'trustProxy' | 'graphql'> &
    Partial<Pick<Config, 'devPages' | 'accessLog' | 'streamStallMs' | 'streamsPerKey' | 'requestTimeoutMs'>>;
  readonly application: Application;
  readonly guard: Guard;
  readonly logger: FastifyBaseLogger;
  /** Whether this process should take traffic (GET /health/ready); always, by default. */
  readonly readiness?: ReadinessCheck;
  /**
   * Observers of every request, registered before the guard and the routes (metrics, tracing: see
   * src/observability). Wrap each in fastify-plugin so that its hooks see the whole server.
   */
  readonly observers?: readonly FastifyPluginAsync[];
  /** Envelop plugins that observe GraphQL operations (metrics, tracing). */
  readonly graphqlObservers?: readonly GraphQLPlugin[];
  /** Told of each event stream opened (+1) and closed (-1): the open-streams gauge. */
  readonly onStreamsOpen?: (change: 1 | -1) => void;
};

/** Builds the HTTP server without listening, so tests can drive it with `inject()`. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const trustProxy = proxyTrust(deps.config.trustProxy);
  const timeouts = requestTimeouts(deps.config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  const app = Fastify({
    loggerInstance: deps.logger,
    // Per-request log lines cost more than the request itself; errors and bans are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy,
    // Fastify's own parser, marking a malformed percent-encoding for a 400 (see query-string.ts).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, querystringParser: parseQueryString },
    frameworkErrors: frameworkErrorHandler(trustProxy),
    // The Error body for what Node's HTTP parser refuses (431, 400): see client-errors.ts.
    clientErrorHandler: clientErrorHandler(),
    // A request that has not arrived in time gets our 408 (see requestTimeouts).
    requestTimeout: timeouts.requestTimeout,
    // A missing Host gets our 400 with the Error body (hostFault), not Node's bare one.
    http: {
      requireHostHeader: false,
      headersTimeout: timeouts.headersTimeout,
      connectionsCheckingInterval: timeouts.connectionsCheckingInterval,
    },
    // Our own 503 instead, with the Error body and X-Request-Id: see shutting-down.ts.
    return503OnClosing: false,
    requestIdHeader: false,
    genReqId: requestId,
  });

  closeSilentConnections(app.server, timeouts.headersTimeout);

  // JSON only: every other media type is a 415 (Fastify would otherwise accept text/plain). A
  // merge patch (RFC 7396) is JSON too.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);
  app.addContentTypeParser('application/merge-patch+json', { parseAs: 'buffer' }, parseJsonBody);

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  routeEveryMethod(app);
  // The observers' hooks come first: a request the next hook refuses runs no later onRequest hook,
  // and would otherwise have no server span.
  listenForUnroutedAnswers(app);
  for (const observer of deps.observers ?? []) await app.register(observer);
  if (deps.config.accessLog === true) await app.register(accessLog);
  // Callback style: on every request, an async hook would cost a promise for nothing.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    // Before the guard, as the parser's refusals: such a request is not counted against a key.
    const raw = request.raw;
    done(versionFault(raw) ?? hostFault(raw) ?? transferCodingFault(raw));
  });
  refuseUnmetExpectations(app);
  refuseConnect(app);
  closeGentlyAfterUnreadBodies(app);
  const shuttingDown = refuseWhileShuttingDown(app);
  closeConnectionsOnClose(app);

  await app.register(deps.guard);
  // After the guard (every onRequest hook, the routes' own included, runs before preParsing): a
  // query that is not well-formed is read with its key, as a path that is not is (see
  // framework-errors.ts), so its 400 is counted and carries the rate-limit headers.
  app.addHook('preParsing', (request, _reply, payload, done) => done(queryFault(request.query), payload));
  await app.register(streamSlots, {
    max: deps.config.streamsPerKey ?? DEFAULT_STREAMS_PER_KEY,
    ...(deps.onStreamsOpen && { onChange: deps.onStreamsOpen }),
  });
  await app.register(storePositions, { application: deps.application });
  await app.register(openApiRoute);
  healthRoutes(app, { readiness: deps.readiness ?? alwaysReady, shuttingDown });
  await app.register(petRoutes, { prefix: '/v1', application: deps.application });
  await app.register(storeRoutes, { prefix: '/v1', application: deps.application });
  await app.register(historyRoutes, { prefix: '/v1', application: deps.application });
  const stallMs = deps.config.streamStallMs ?? DEFAULT_STALL_MS;
  await app.register(auditEventRoutes, { prefix: '/v1', application: deps.application, stallMs });
  await app.register(changeStreamRoutes, { prefix: '/v1', application: deps.application, stallMs });
  await app.register(adminRoutes, { prefix: '/v1', application: deps.application });
  await app.register(graphqlRoutes, {
    application: deps.application,
    config: deps.config.graphql,
    stallMs,
    observers: deps.graphqlObservers ?? [],
  });
  if (deps.config.devPages === true) await app.register(devPages);
  return app;
}
