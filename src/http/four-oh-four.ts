import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowedError, NotFoundError } from '../shared/errors.ts';
import { sendError } from './error-handler.ts';

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, new NotFoundError(`No route ${request.method} ${request.url.split('?')[0]}.`));
}

/** Every method Fastify routes (its bodyless and body-carrying sets, RFC 10008's QUERY included). */
const ROUTED_METHODS = [
  'GET',
  'HEAD',
  'TRACE',
  'DELETE',
  'OPTIONS',
  'PATCH',
  'PUT',
  'POST',
  'QUERY',
] as const;

/**
 * Answers every other routed method on `url` with 405 and `Allow`. It rejects in `onRequest`, so
 * the answer is a 405 whatever the body (no 400 or 415 from parsing a body nobody will read).
 */
export function allowOnly(app: FastifyInstance, url: string, allowed: readonly string[]): void {
  const error = (method: string) => new MethodNotAllowedError(method, allowed);
  app.route({
    method: ROUTED_METHODS.filter((method) => !allowed.includes(method)),
    url,
    onRequest: async (request) => {
      throw error(request.method);
    },
    handler: async (request) => {
      throw error(request.method);
    },
  });
}
