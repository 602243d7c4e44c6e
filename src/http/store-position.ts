import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Application } from '../application/index.ts';
import { isPromise } from '../shared/maybe-promise.ts';
import { singleHeader } from './single-header.ts';

/** The store position of a request's last write, on its response (REST and GraphQL alike). */
export const STORE_POSITION_HEADER = 'X-Store-Position';
/** Sent with any request: answer only once this server's read models include that position. */
export const MIN_POSITION_HEADER = 'X-Min-Position';
const MIN_POSITION_NAME = MIN_POSITION_HEADER.toLowerCase();

/**
 * Consistency across processes, at the edge: every response to a request that wrote carries
 * X-Store-Position, and a request with X-Min-Position waits (after the guard, before its handler)
 * until this server's read models include it, or fails with 503 position_not_reached. Registered
 * with fastify-plugin so that its hooks apply to every route.
 */
export const storePositions = fp(
  async (app: FastifyInstance, options: { application: Application }) => {
    app.decorateRequest('storePosition', undefined);
    // Callback style: on every request, an async hook would cost a promise for nothing.
    app.addHook('preHandler', (request, _reply, done) => {
      // An orchestrator's health probe reads no read model: a header there changes nothing. The
      // common request sends none: it is looked for first, as its lines are counted only when sent.
      if (request.headers[MIN_POSITION_NAME] === undefined || request.routeOptions.config.probe === true)
        return done();
      try {
        const waiting = options.application.awaitPosition(singleHeader(request, MIN_POSITION_HEADER)!);
        if (!isPromise(waiting)) return done();
        waiting.then(
          () => done(),
          (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
        );
      } catch (error) {
        done(error as Error);
      }
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      if (request.storePosition !== undefined)
        reply.header(STORE_POSITION_HEADER, request.storePosition.toString());
      done(null, payload);
    });
  },
  { name: 'store-positions' },
);
