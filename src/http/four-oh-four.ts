import { METHODS } from 'node:http';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowedError, NotFoundError } from '../shared/errors.ts';
import { sendError } from './error-handler.ts';

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, new NotFoundError(`No route ${request.method} ${request.url.split('?')[0]}.`));
}

/**
 * Every method Node's HTTP parser reads, but CONNECT (which never reaches a route: see refuseConnect): after
 * `routeEveryMethod`, Fastify routes them all.
 */
const ROUTED_METHODS = METHODS.filter((method) => method !== 'CONNECT');

/**
 * Lets Fastify route the methods it does not know by default (WebDAV's PROPFIND, LOCK, MKCOL…,
 * SEARCH, PURGE, LINK), so that on a known path they get 405 with `Allow`, as PUT does, rather
 * than a 404 that says the path does not exist. A body is allowed: `allowOnly` refuses before
 * reading one.
 */
export function routeEveryMethod(app: FastifyInstance): void {
  const known = new Set(app.supportedMethods);
  for (const method of ROUTED_METHODS) if (!known.has(method)) app.addHttpMethod(method, { hasBody: true });
}

/**
 * Answers every other method the instance routes (all of them after `routeEveryMethod`) on `url`
 * with 405 and `Allow`. It rejects in `onRequest`, so
 * the answer is a 405 whatever the body (no 400 or 415 from parsing a body nobody will read).
 */
export function allowOnly(
  app: FastifyInstance,
  url: string,
  allowed: readonly string[],
  /** The route config of the allowed methods, when the guard must treat the 405 as it treats them. */
  config?: FastifyContextConfig,
): void {
  const error = (method: string) => new MethodNotAllowedError(method, allowed);
  app.route({
    method: app.supportedMethods.filter((method) => !allowed.includes(method)),
    url,
    ...(config !== undefined && { config }),
    onRequest: async (request) => {
      throw error(request.method);
    },
    handler: async (request) => {
      throw error(request.method);
    },
  });
}
