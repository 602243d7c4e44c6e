import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * A request's id, its `X-Request-Id` in responses and its `reqId` in the log: the client's own when
 * it sent a well-formed one (1 to 128 letters, digits, `_`, `.`, `:`, `-`), else a new UUID. The
 * one rule for Fastify's requests and for those answered before Fastify sees them (a refused Expect).
 */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
