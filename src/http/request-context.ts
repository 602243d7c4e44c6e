import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../application/index.ts';
import { grants } from '../domain/scopes.ts';

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
  interface FastifyRequest {
    /** The store position of the last event this request wrote (see store-position.ts). */
    storePosition: bigint | undefined;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span as a W3C traceparent; set only when tracing is on (src/observability). */
    traceparent?: string;
  }
}

/**
 * The request's correlation id, the id of its API key once the guard has authenticated it (with
 * whether that key is an admin's), where the application tells the store position of what the
 * request wrote, and the request's span when tracing is on.
 */
export function requestContext(request: FastifyRequest): RequestContext {
  const apiKeyId = request.apiKey?.keyId;
  const recordPosition = (position: bigint) => {
    if (request.storePosition === undefined || position > request.storePosition)
      request.storePosition = position;
  };
  const context: RequestContext =
    apiKeyId === undefined
      ? { correlationId: request.id, recordPosition }
      : { correlationId: request.id, apiKeyId, admin: isAdmin(request), recordPosition };
  return request.traceparent === undefined ? context : { ...context, traceparent: request.traceparent };
}

/**
 * As the key was when the request arrived. Not `hasScope`, which would make every stream of an
 * admin key end once it lost admin: only a stream that serves every key's orders relies on it, and
 * says so (orderChanged).
 */
function isAdmin(request: FastifyRequest): boolean {
  return request.apiKey !== null && grants(request.apiKey.scopes, 'admin');
}
