import type { Logger } from 'pino';
import type { ApiKey } from '../domain/api-keys.ts';
import type { Limits } from '../domain/plans.ts';
import { REJECTED_REQUESTS_BEFORE_BAN } from '../domain/rate-decision.ts';
import type { Clock } from '../shared/context.ts';
import { banApiKey } from './commands/api-keys.ts';
import { KeyRegistry } from './key-registry.ts';
import type { CounterStore } from './ports/counters.ts';
import type { EventStore } from './ports/event-store.ts';
import type { ApiKeyReadModel } from './ports/read-models.ts';
import { RateLimiter } from './rate-limiter.ts';

/** What the HTTP guard (src/http/guard.ts) needs, composed in src/service.ts: `apiKeyGuard(auth)`. */
export type Auth = {
  readonly keys: KeyRegistry;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /**
   * Bans a key that keeps sending after 429, at least until `windowEndMs`, when the window it
   * overran ends; resolves to the key's state after the ban.
   */
  banKey(key: ApiKey, correlationId: string, windowEndMs: number): Promise<ApiKey | undefined>;
};

export type AuthDependencies = {
  readonly store: EventStore;
  readonly keys: ApiKeyReadModel;
  /** Where rate-limit counts are kept: this process's memory, or Redis. */
  readonly counters: CounterStore;
  readonly clock: Clock;
  readonly banSeconds: number;
  /** Per client address, for requests without a valid key; the default otherwise (ANONYMOUS_LIMITS). */
  readonly anonymousLimits?: Limits;
  readonly logger: Logger;
};

/** Authentication and rate limits for the whole service: the keys, the counters and bans. */
export function createAuth(deps: AuthDependencies): Auth {
  const { store, clock, logger } = deps;

  /**
   * Resolves the key as the ban command left it, without waiting for the read model: banned, or
   * already banned by another process. Undefined when the key is unknown or the store failed.
   */
  async function banKey(
    key: ApiKey,
    correlationId: string,
    windowEndMs: number,
  ): Promise<ApiKey | undefined> {
    try {
      const reason = `more than ${REJECTED_REQUESTS_BEFORE_BAN} requests past the limit in one window`;
      const change = await banApiKey(
        { store, clock },
        key.keyId,
        { seconds: deps.banSeconds, reason, notBeforeMs: windowEndMs },
        { correlationId },
      );
      if (change.changed && change.key !== undefined) {
        const until = new Date(change.key.bannedUntilMs).toISOString();
        logger.warn({ event: 'api_key.banned', keyId: key.keyId, until, reason }, 'API key banned');
      }
      return change.key;
    } catch (error) {
      logger.error({ err: error, keyId: key.keyId }, 'could not ban an API key: it stays rate-limited');
      return undefined;
    }
  }

  return {
    keys: new KeyRegistry(deps.keys, () => store.headPosition()),
    limiter: new RateLimiter(deps.counters, deps.anonymousLimits),
    clock,
    banKey,
  };
}
