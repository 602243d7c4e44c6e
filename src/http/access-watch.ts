import type { FastifyRequest } from 'fastify';
import type { Scope } from '../domain/scopes.ts';
import type { AppError } from '../shared/errors.ts';

/** How often an open stream checks that its key still lets it through. */
export const ACCESS_RECHECK_MS = 1000;

/**
 * For a stream that outlives its request's guard (REST's server-sent events, a GraphQL
 * subscription): calls `withdrawn`, once, with the error a new request would get, when the key is
 * revoked, rotated past its grace, expires or is banned, or loses one of `scopes`. A revoked key
 * stops reading within ACCESS_RECHECK_MS plus the store's subscription lag, as it stops writing.
 * Returns the watch's end, for when the stream ends first; nothing to watch behind the open guard.
 */
export function watchAccess(
  request: FastifyRequest,
  scopes: readonly Scope[],
  withdrawn: (error: AppError) => void,
): () => void {
  if (request.apiKey === null) return () => {};
  const timer = setInterval(() => {
    const error = request.accessWithdrawn(scopes);
    if (error === undefined) return;
    clearInterval(timer);
    withdrawn(error);
  }, ACCESS_RECHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * What else ends a stream, with an error its client is given (see `accessWatch`, which ends a
 * stream whose key may no longer read).
 */
export type StreamWatch = {
  /** Told how to end the stream, watches it while idle, until the function it returns is called. */
  readonly start: (end: (error: Error) => void) => () => void;
  /** The error to end the stream with now, if any: asked before each item is handed on. */
  readonly now: () => Error | undefined;
};

/**
 * Ends a stream once its request's key may no longer do what `scopes` allow: checked before each
 * item, so that none reaches a key that lost them, and every second while none comes (see
 * `watchAccess`).
 */
export function accessWatch(request: FastifyRequest, scopes: readonly Scope[]): StreamWatch {
  return {
    start: (end) => watchAccess(request, scopes, end),
    now: () => request.accessWithdrawn(scopes),
  };
}
