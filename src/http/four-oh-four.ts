import type { FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowedError, NotFoundError } from '../errors.ts';
import { sendError } from './error-handler.ts';

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, new NotFoundError(`No route ${request.method} ${request.url.split('?')[0]}.`));
}

/** A handler for the methods a path does not support: 405 with `Allow`. */
export function methodNotAllowed(allowed: readonly string[]) {
  return async function methodNotAllowedHandler(request: FastifyRequest): Promise<never> {
    throw new MethodNotAllowedError(request.method, allowed);
  };
}

/** Every method Fastify routes that a resource may not support. */
export const ALL_METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'] as const;

export function otherMethods(allowed: readonly string[]): string[] {
  return ALL_METHODS.filter((method) => !allowed.includes(method));
}
