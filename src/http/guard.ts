import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../application/context.ts';
import { type ApiKey, isBanned } from '../auth/api-keys.ts';
import { BannedError, InvalidApiKeyError, MissingApiKeyError, RateLimitedError } from '../auth/errors.ts';
import { crossesBanThreshold, type RateStatus, secondsUntil } from '../auth/rate-decision.ts';
import type { RateLimiter } from '../auth/rate-limiter.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key, as it was when the request arrived; null on public routes. */
    apiKey: ApiKey | null;
  }
  interface FastifyInstance {
    /**
     * The guard, for a request Fastify's router refused before any hook ran (see
     * src/http/framework-errors.ts): authenticates it, counts it (against its key, or against
     * `address`) and sets the rate-limit headers; rejects with the guard's 401 or 429.
     */
    guardUnrouted(request: FastifyRequest, reply: FastifyReply, address: string): Promise<void>;
  }
}

/**
 * The guard runs before every adapter (REST and GraphQL alike): the one place where
 * authentication and rate limits plug in. Registered with fastify-plugin so its hooks apply to
 * the whole server, including the 404 handler.
 */
export type Guard = FastifyPluginAsync;

/** No authentication and no limits. */
export const openGuard: Guard = fp(
  async (app) => {
    app.decorateRequest('apiKey', null);
    app.decorate('guardUnrouted', async () => {});
  },
  { name: 'guard' },
);

export type ApiKeyGuardDependencies = {
  readonly keys: { authenticate(secret: string): ApiKey | undefined };
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /** Bans a key that keeps sending after 429; resolves to the key's state after the ban. */
  readonly banKey: (key: ApiKey, correlationId: string) => Promise<ApiKey | undefined>;
};

/**
 * Bearer API keys, per-plan limits per key, stricter limits per address for requests without a
 * valid key. A valid key is served whatever its address has sent without one: behind NAT or a
 * proxy, one client's stale key must not shut out the others (and 256-bit keys cannot be guessed).
 */
export function apiKeyGuard(deps: ApiKeyGuardDependencies): Guard {
  const { keys, limiter, clock } = deps;

  async function limitKey(request: FastifyRequest, reply: FastifyReply, key: ApiKey, nowMs: number) {
    if (isBanned(key, nowMs)) throw banned(reply, key, nowMs);
    const status = await limiter.limitKey(key, nowMs);
    setRateHeaders(reply, status);
    if (status.allowed) return;
    if (crossesBanThreshold(status)) {
      const bannedKey = await deps.banKey(key, request.id);
      if (bannedKey !== undefined && isBanned(bannedKey, nowMs)) throw banned(reply, bannedKey, nowMs);
    }
    throw new RateLimitedError(status.retryAfter);
  }

  async function refuseAnonymous(reply: FastifyReply, address: string, nowMs: number, error: Error) {
    const status = await limiter.limitAnonymous(address, nowMs);
    setRateHeaders(reply, status);
    if (status.allowed) throw error;
    throw new RateLimitedError(status.retryAfter);
  }

  /**
   * Every request but the public routes'. `address` is the client's, when `request.ip` cannot tell
   * it (a request refused before routing).
   */
  async function guardKeyed(request: FastifyRequest, reply: FastifyReply, address?: string): Promise<void> {
    const nowMs = clock.nowMs();
    const secret = bearerToken(request.headers.authorization);
    if (secret === undefined)
      return refuseAnonymous(reply, address ?? request.ip, nowMs, new MissingApiKeyError());
    const key = keys.authenticate(secret);
    if (key === undefined)
      return refuseAnonymous(reply, address ?? request.ip, nowMs, new InvalidApiKeyError());
    request.apiKey = key;
    return limitKey(request, reply, key, nowMs);
  }
  const keyedHook = (request: FastifyRequest, reply: FastifyReply) => guardKeyed(request, reply);

  async function guardPublic(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const status = await limiter.limitPublic(request.ip, clock.nowMs());
    setRateHeaders(reply, status);
    if (!status.allowed) throw new RateLimitedError(status.retryAfter);
  }

  return fp(
    async (app) => {
      app.decorateRequest('apiKey', null);
      app.decorate('guardUnrouted', guardKeyed);
      // Public or not is decided once per route, here, rather than on every request.
      app.addHook('onRoute', (route) => {
        if (route.config?.probe === true) return; // orchestrators' health checks: never keyed nor limited
        const hook = route.config?.public === true ? guardPublic : keyedHook;
        route.onRequest = route.onRequest === undefined ? [hook] : [hook, ...[route.onRequest].flat()];
      });
      // The 404 handler is no route, so it gets no route hook: guard it here.
      app.addHook('onRequest', (request, reply, done) => {
        if (!request.is404) return done();
        keyedHook(request, reply).then(() => done(), done);
      });
    },
    { name: 'guard' },
  );
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), '' when empty, undefined when none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.startsWith('Bearer ')) return header.slice(7).trim();
  const match = /^bearer(?: +(.*))?$/i.exec(header);
  return match === null ? undefined : (match[1] ?? '').trim();
}

function setRateHeaders(reply: FastifyReply, status: RateStatus): void {
  reply.header('x-ratelimit-limit', status.limit);
  reply.header('x-ratelimit-remaining', status.remaining);
  reply.header('x-ratelimit-reset', status.reset);
}

/** While banned, the ban binds: nothing remains until it ends. */
function banned(reply: FastifyReply, key: ApiKey, nowMs: number): BannedError {
  reply.header('x-ratelimit-limit', key.limits.perMinute);
  reply.header('x-ratelimit-remaining', 0);
  reply.header('x-ratelimit-reset', Math.ceil(key.bannedUntilMs / 1000));
  return new BannedError(secondsUntil(nowMs, key.bannedUntilMs));
}
