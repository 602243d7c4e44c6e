import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../application/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the guard once the API key is authenticated. */
    apiKeyId?: string;
  }
  interface FastifyContextConfig {
    /** Served without an API key (documentation, health). */
    public?: boolean;
  }
}

export function requestContext(request: FastifyRequest): RequestContext {
  return request.apiKeyId === undefined
    ? { correlationId: request.id }
    : { correlationId: request.id, apiKeyId: request.apiKeyId };
}
