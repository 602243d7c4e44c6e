import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../application/index.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without an API key (documentation, health). */
    public?: boolean;
  }
}

/** The request's correlation id, and the id of its API key once the guard has authenticated it. */
export function requestContext(request: FastifyRequest): RequestContext {
  const apiKeyId = request.apiKey?.keyId;
  return apiKeyId === undefined ? { correlationId: request.id } : { correlationId: request.id, apiKeyId };
}
