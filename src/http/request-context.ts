import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../application/index.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without an API key (documentation, health). */
    public?: boolean;
    /**
     * A health probe for load balancers and orchestrators: no key, no limit, no rate-limit
     * headers. It exposes nothing, and a probe every few seconds must never be refused.
     */
    probe?: boolean;
  }
}

/**
 * The request's correlation id, and the id of its API key once the guard has authenticated it,
 * with whether that key is an admin's.
 */
export function requestContext(request: FastifyRequest): RequestContext {
  const apiKeyId = request.apiKey?.keyId;
  if (apiKeyId === undefined) return { correlationId: request.id };
  return { correlationId: request.id, apiKeyId, admin: request.hasScope('admin') };
}
