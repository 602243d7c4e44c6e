import type {
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../shared/context.ts';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.ts';
import { type ApiKey, isBanned, isExpired } from '../domain/api-keys.ts';
import { grants, type Scope } from '../domain/scopes.ts';
import {
  ApiKeyExpiredError,
  BannedError,
  InsufficientScopeError,
  InvalidApiKeyError,
  MissingApiKeyError,
  RateLimitedError,
} from '../shared/auth-errors.ts';
import type { AppError } from '../shared/errors.ts';
import { crossesBanThreshold, type RateStatus, secondsUntil } from '../domain/rate-decision.ts';
import type { RateLimiter } from '../application/rate-limiter.ts';
import { setBannedRateLimitHeaders, setRateLimitHeaders } from './rate-limit-headers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key, as it was when the request arrived; null on public routes. */
    apiKey: ApiKey | null;
    /**
     * Whether the request's key may do what `scope` allows now (always, behind the open guard). A
     * scope it grants is remembered: a stream the request holds ends once the key loses it (see
     * `accessWithdrawn`), so that a GraphQL subscription's nested fields, checked once, stay right.
     */
    hasScope(scope: Scope): boolean;
    /** The scopes `hasScope` granted this request; null until it granted one. */
    scopesRelied: Set<Scope> | null;
    /**
     * For a request that stays open (a stream): the error a new request with the same key would get
     * now (the key revoked, rotated past its grace, expired or banned, or one of `scopes`, or of
     * the scopes the request relied on, removed), or undefined while it would still be let through.
     * Always undefined behind the open guard.
     */
    accessWithdrawn(scopes: readonly Scope[]): AppError | undefined;
  }
  interface FastifyReply {
    /**
     * Counts `points` more requests against the request's key (a GraphQL document with several
     * mutation fields counts once per field): sets the rate-limit headers again, and throws, or
     * rejects, with the guard's 429 when they go over the limit, having taken them back (the
     * request counted once, as a refused one does). `askingAgain`: the same charge, refused before
     * and asked for again (a replay waiting for the budget), which metrics do not count as refused
     * again. Nothing behind the open guard.
     */
    consumeRateLimit(points: number, options?: { readonly askingAgain?: boolean }): MaybePromise<void>;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route; none for routes any valid key may call. */
    scope?: Scope;
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
    app.decorateRequest('hasScope', () => true);
    app.decorateRequest('scopesRelied', null);
    app.decorateRequest('accessWithdrawn', () => undefined);
    app.decorateReply('consumeRateLimit', () => undefined);
    app.decorate('guardUnrouted', async () => {});
  },
  { name: 'guard' },
);

export type ApiKeyGuardDependencies = {
  readonly keys: {
    authenticate(secret: string, nowMs: number): ApiKey | undefined;
    /** For a secret `authenticate` did not know: looks again once caught up with the store. */
    authenticateCaughtUp?(secret: string, nowMs: () => number): Promise<ApiKey | undefined>;
  };
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /**
   * Bans a key that keeps sending after 429, at least until `windowEndMs` (the end of the window it
   * overran); resolves to the key's state after the ban.
   */
  readonly banKey: (key: ApiKey, correlationId: string, windowEndMs: number) => Promise<ApiKey | undefined>;
  /**
   * Told of every rate-limit decision, for metrics: by the key's plan, or `anonymous` (requests
   * without a valid key) or `public` (the public routes' per-address budget).
   */
  readonly onDecision?: (decision: RateLimitDecision, plan: string) => void;
};

export type RateLimitDecision = 'allowed' | 'limited' | 'banned';

/**
 * Bearer API keys, per-plan limits per key, stricter limits per address for requests without a
 * valid key. A valid key is served whatever its address has sent without one: behind NAT or a
 * proxy, one client's stale key must not shut out the others (and 256-bit keys cannot be guessed).
 */
export function apiKeyGuard(deps: ApiKeyGuardDependencies): Guard {
  const { keys, limiter, clock } = deps;
  const decided = deps.onDecision ?? (() => {});
  /**
   * The bans this process is appending, by key id: a request of the key refused meanwhile answers
   * as the ban does (banned, with its Retry-After), not with the window's Retry-After, which would
   * send the client back while it is banned.
   */
  const bansUnderWay = new Map<string, Promise<ApiKey | undefined>>();

  // Every step below is synchronous while the counters are in memory, and only then asynchronous
  // when they are in Redis: on the embedded default, a request passes the guard without a promise.

  /**
   * Counts the request, or `points` further requests for it (GraphQL's mutation fields past the
   * first, a replay's reads). `askingAgain`: a charge refused before and asked for again (a replay
   * waiting for the budget) is not told to `onDecision` as refused once more.
   */
  function limitKey(
    request: FastifyRequest,
    reply: FastifyReply,
    key: ApiKey,
    nowMs: number,
    further: { readonly points: number; readonly askingAgain?: boolean } = { points: 0 },
  ) {
    const { points } = further;
    if (isBanned(key, nowMs)) {
      decided('banned', key.plan);
      throw banned(reply, key, nowMs);
    }
    const counted = points === 0 ? limiter.limitKey(key, nowMs) : limiter.limitKeyFurther(key, nowMs, points);
    return andThen(counted, (status): MaybePromise<void> => {
      setRateLimitHeaders(reply, status, nowMs);
      if (status.allowed) return decided('allowed', key.plan);
      if (crossesBanThreshold(status)) return ban(request, reply, key, nowMs, status);
      const underWay = bansUnderWay.get(key.keyId);
      const record = further.askingAgain !== true;
      if (underWay !== undefined)
        return underWay.then((bannedKey) => refuse(reply, key, bannedKey, nowMs, status, record));
      return refuse(reply, key, undefined, nowMs, status, record);
    });
  }

  /** Answers a refused request: banned when `bannedKey` is banned now, else rate limited. */
  function refuse(
    reply: FastifyReply,
    key: ApiKey,
    bannedKey: ApiKey | undefined,
    nowMs: number,
    status: RateStatus,
    record = true,
  ): never {
    if (bannedKey !== undefined && isBanned(bannedKey, nowMs)) {
      decided('banned', key.plan);
      throw banned(reply, bannedKey, nowMs);
    }
    if (record) decided('limited', key.plan);
    throw new RateLimitedError(status.retryAfter);
  }

  /** After the limits, so that a refused request is counted and carries the headers like any other. */
  function authorize(request: FastifyRequest, key: ApiKey): void {
    const scope = request.routeOptions.config.scope;
    if (scope !== undefined && !grants(key.scopes, scope)) throw new InsufficientScopeError(scope);
  }

  async function ban(
    request: FastifyRequest,
    reply: FastifyReply,
    key: ApiKey,
    nowMs: number,
    status: RateStatus,
  ): Promise<void> {
    const underWay = deps.banKey(key, request.id, status.reset * 1000);
    bansUnderWay.set(key.keyId, underWay);
    let bannedKey: ApiKey | undefined;
    try {
      bannedKey = await underWay;
    } finally {
      bansUnderWay.delete(key.keyId);
    }
    refuse(reply, key, bannedKey, nowMs, status);
  }

  function refuseAnonymous(reply: FastifyReply, address: string, nowMs: number, error: Error) {
    return andThen(limiter.limitAnonymous(address, nowMs), (status): never => {
      setRateLimitHeaders(reply, status, nowMs);
      decided(status.allowed ? 'allowed' : 'limited', 'anonymous');
      if (status.allowed) throw error;
      throw new RateLimitedError(status.retryAfter, false);
    });
  }

  /**
   * Every request but the public routes'. `address` is the client's, when `request.ip` cannot tell
   * it (a request refused before routing). Throws, or rejects, with the guard's 401, 403 or 429.
   */
  function guardKeyed(request: FastifyRequest, reply: FastifyReply, address?: string): MaybePromise<void> {
    const nowMs = clock.nowMs();
    const secret = bearerToken(request.headers.authorization);
    if (secret === undefined)
      return refuseAnonymous(reply, address ?? request.ip, nowMs, new MissingApiKeyError());
    const key = keys.authenticate(secret, nowMs);
    if (key === undefined) {
      if (keys.authenticateCaughtUp === undefined)
        return refuseAnonymous(reply, address ?? request.ip, nowMs, new InvalidApiKeyError());
      return keys
        .authenticateCaughtUp(secret, () => clock.nowMs())
        .then((late) => {
          const now = clock.nowMs();
          if (late === undefined)
            return refuseAnonymous(reply, address ?? request.ip, now, new InvalidApiKeyError());
          return admit(request, reply, late, now, address);
        });
    }
    return admit(request, reply, key, nowMs, address);
  }

  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    key: ApiKey,
    nowMs: number,
    address: string | undefined,
  ): MaybePromise<void> {
    if (isExpired(key, nowMs)) {
      const expiredAt = new Date(key.expiresAtMs).toISOString();
      return refuseAnonymous(reply, address ?? request.ip, nowMs, new ApiKeyExpiredError(expiredAt));
    }
    request.apiKey = key;
    return andThen(limitKey(request, reply, key, nowMs), () => authorize(request, key));
  }
  function accessWithdrawn(request: FastifyRequest, scopes: readonly Scope[]): AppError | undefined {
    const nowMs = clock.nowMs();
    const key = keys.authenticate(bearerToken(request.headers.authorization) ?? '', nowMs);
    if (key === undefined) return new InvalidApiKeyError();
    if (isExpired(key, nowMs)) return new ApiKeyExpiredError(new Date(key.expiresAtMs).toISOString());
    if (isBanned(key, nowMs)) return new BannedError(secondsUntil(nowMs, key.bannedUntilMs));
    const missing = scopes.find((scope) => !grants(key.scopes, scope));
    return missing === undefined ? undefined : new InsufficientScopeError(missing);
  }

  const keyedHook: onRequestHookHandler = (request, reply, done) =>
    settle(() => guardKeyed(request, reply), done);

  const publicHook: onRequestHookHandler = (request, reply, done) =>
    settle(() => {
      const nowMs = clock.nowMs();
      return andThen(limiter.limitPublic(request.ip, nowMs), (status) => {
        setRateLimitHeaders(reply, status, nowMs);
        decided(status.allowed ? 'allowed' : 'limited', 'public');
        if (!status.allowed) throw new RateLimitedError(status.retryAfter, false);
      });
    }, done);

  return fp(
    async (app) => {
      app.decorateRequest('apiKey', null);
      // The key's scopes as they are now, not as they were when the request arrived: a
      // subscription's fields are checked when each event comes, and GraphQL's scope checks
      // remember their first answer. Only its scopes: a key revoked, expired or banned since is a
      // stream's watch's to end (before the next event); a request it let in is answered, rather
      // than its later fields refused for a scope the key has.
      app.decorateRequest('hasScope', function hasScope(this: FastifyRequest, scope: Scope) {
        if (this.apiKey === null) return false;
        const key = keys.authenticate(bearerToken(this.headers.authorization) ?? '', clock.nowMs());
        if (!grants((key ?? this.apiKey).scopes, scope)) return false;
        (this.scopesRelied ??= new Set()).add(scope);
        return true;
      });
      app.decorateRequest('scopesRelied', null);
      app.decorateRequest(
        'accessWithdrawn',
        function withdrawn(this: FastifyRequest, scopes: readonly Scope[]): AppError | undefined {
          if (this.apiKey === null) return undefined;
          return accessWithdrawn(
            this,
            this.scopesRelied === null ? scopes : [...scopes, ...this.scopesRelied],
          );
        },
      );
      app.decorateReply(
        'consumeRateLimit',
        function consumeRateLimit(this: FastifyReply, points: number, options = {}) {
          const { request } = this;
          if (request.apiKey === null || points <= 0) return undefined;
          // The key as it is now, not as the request found it: a stream's replay pays for its reads
          // long after it opened, under the plan the key has then, and a ban stops it.
          const nowMs = clock.nowMs();
          const key = keys.authenticate(bearerToken(request.headers.authorization) ?? '', nowMs);
          return limitKey(request, this, key ?? request.apiKey, nowMs, { points, ...options });
        },
      );
      app.decorate('guardUnrouted', async (request, reply, address) => {
        try {
          await guardKeyed(request, reply, address);
        } catch (error) {
          throw asError(error);
        }
      });
      // Public or not is decided once per route, here, rather than on every request.
      app.addHook('onRoute', (route) => {
        if (route.config?.probe === true) return; // orchestrators' health checks: never keyed nor limited
        const hook = route.config?.public === true ? publicHook : keyedHook;
        route.onRequest = route.onRequest === undefined ? [hook] : [hook, ...[route.onRequest].flat()];
      });
      // The 404 handler is no route, so it gets no route hook: guard it here.
      app.addHook('onRequest', (request, reply, done) => {
        if (!request.is404) return done();
        keyedHook.call(app, request, reply, done);
      });
    },
    { name: 'guard' },
  );
}

/**
 * Runs a callback-style hook's work, which may finish at once or later, and reports to `done` once.
 * Whatever it fails with is passed on as an Error: `done` takes a falsy error for success, and the
 * guard must never let a request through because something threw `undefined`.
 */
function settle(work: () => MaybePromise<void>, done: HookHandlerDoneFunction): void {
  let outcome: MaybePromise<void>;
  try {
    outcome = work();
  } catch (error) {
    done(asError(error));
    return;
  }
  if (isPromise(outcome))
    outcome.then(
      () => done(),
      (error: unknown) => done(asError(error)),
    );
  else done();
}

function asError(thrown: unknown): Error {
  return thrown instanceof Error
    ? thrown
    : new Error('the guard failed with a value that is not an Error', { cause: thrown });
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), '' when empty, undefined when none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.startsWith('Bearer ')) return header.slice(7).trim();
  const match = /^bearer(?: +(.*))?$/i.exec(header);
  return match === null ? undefined : (match[1] ?? '').trim();
}

/** While banned, the ban binds: nothing remains until it ends. */
function banned(reply: FastifyReply, key: ApiKey, nowMs: number): BannedError {
  setBannedRateLimitHeaders(reply, key.limits, key.bannedUntilMs, nowMs);
  return new BannedError(secondsUntil(nowMs, key.bannedUntilMs));
}
