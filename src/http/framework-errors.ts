import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError, ValidationError } from '../shared/errors.ts';
import { clientAddress, type ProxyTrust } from './client-address.ts';
import { errorHandler } from './error-handler.ts';

/**
 * The longest path parameter the router hands to a route: far above any id, so that a long id
 * still gets its route's own 400 or 404. A longer one is refused here.
 */
export const MAX_PARAM_LENGTH = 1000;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Told of each answer to a request the router refused (see frameworkErrorHandler), once sent.
     * No hook of the server runs for such a request, so the observers of every response (metrics,
     * the access log, tracing) listen here as well as in their hooks.
     */
    readonly unroutedAnswers: UnroutedAnswerListener[];
    /**
     * Tells `listener` of each response that closed before it was finished: an event stream its
     * client left or the server ended as stalled, a client that gave up waiting. Fastify runs no
     * onResponse hook for such a response, so the observers that act once a response is over (the
     * access log, tracing) listen here as well; one whose response failed with an error may have
     * run onResponse already, so a listener acts once per request. Its hook is added on first use:
     * a server without such observers pays nothing.
     */
    onClosedEarly(listener: UnroutedAnswerListener): void;
  }
}

export type UnroutedAnswerListener = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Where frameworkErrorHandler finds the listeners of its answers, and where observers ask to hear
 * of responses that closed early: before any observer registers.
 */
export function listenForUnroutedAnswers(app: FastifyInstance): void {
  app.decorate('unroutedAnswers', []);
  const closedEarly: UnroutedAnswerListener[] = [];
  app.decorate('onClosedEarly', (listener: UnroutedAnswerListener) => {
    if (closedEarly.length === 0)
      app.addHook('onRequest', (request, reply, done) => {
        const response = reply.raw;
        response.once('close', () => {
          if (response.writableFinished) return;
          for (const told of closedEarly) told(request, reply);
        });
        done();
      });
    closedEarly.push(listener);
  });
}

/**
 * Fastify's `frameworkErrors`: the requests its router refuses before any hook runs (a malformed
 * percent-encoding, an over-long path parameter). They go through the guard first, so that they
 * are authenticated, counted and carry the rate-limit headers like every other response, then get
 * the spec's Error body. Fastify builds a bare request object for them, whose `ip` ignores
 * TRUST_PROXY: the client address is derived here instead.
 */
export function frameworkErrorHandler(trust: ProxyTrust | false) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('X-Request-Id', request.id);
    request.server
      .guardUnrouted(request, reply, clientAddress(request.raw, trust))
      .then(() => Promise.reject(routerError(error)))
      .catch((failure: FastifyError) => errorHandler(failure, request, reply))
      .then(() => {
        for (const listener of request.server.unroutedAnswers) listener(request, reply);
      });
  };
}

function routerError(error: FastifyError): Error {
  if (error.code === 'FST_ERR_BAD_URL')
    return new BadRequestError('bad_request', 'The URL is not valid: it holds a malformed percent-encoding.');
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new ValidationError(`A path segment is longer than ${MAX_PARAM_LENGTH} characters.`);
  return error;
}
