import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { secondsUntil, windowEnd, windowIndex } from './rate-decision.ts';

/**
 * Counts requests per subject in fixed, clock-aligned windows, with rate-limiter-flexible as the
 * atomic counter store (in memory, or in Redis shared by every process). The limiter's own
 * `points` is left unbounded: limits differ per key and plan, so the caller compares the count
 * with the key's limit (src/auth/rate-decision.ts). The window index is part of the counter's key,
 * so a new window starts a new counter at the same instant in every process, and a test's clock
 * decides which window a request falls in.
 */
export class WindowCounter {
  readonly #limiter: RateLimiterAbstract;
  readonly #windowMs: number;

  constructor(limiter: RateLimiterAbstract, windowMs: number) {
    this.#limiter = limiter;
    this.#windowMs = windowMs;
  }

  /**
   * Adds `points` to the subject's counter for the window holding `nowMs`; resolves the new count.
   * The counter expires when its window ends (in memory and in Redis alike), so counters of
   * finished windows take no room: memory holds one entry per subject seen in a live window.
   */
  async consume(subject: string, nowMs: number, points = 1): Promise<number> {
    const result = await this.#limiter.consume(this.#key(subject, nowMs), points, this.#expiry(nowMs));
    return result.consumedPoints;
  }

  /** Takes back `points` that `consume` added in the same window. */
  async refund(subject: string, nowMs: number, points = 1): Promise<void> {
    await this.#limiter.reward(this.#key(subject, nowMs), points, this.#expiry(nowMs));
  }

  #key(subject: string, nowMs: number): string {
    return `${subject}:${windowIndex(nowMs, this.#windowMs)}`;
  }

  #expiry(nowMs: number): { customDuration: number } {
    return { customDuration: secondsUntil(nowMs, windowEnd(nowMs, this.#windowMs) * 1000) };
  }
}

export type CounterStore = { counter(name: string, windowMs: number): WindowCounter };

const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Counters in this process's memory: the embedded default. */
export function memoryCounters(): CounterStore {
  return {
    counter: (name, windowMs) =>
      new WindowCounter(
        new RateLimiterMemory({ keyPrefix: name, points: UNBOUNDED, duration: windowMs / 1000 }),
        windowMs,
      ),
  };
}

/**
 * Counters in Redis, shared by every process using it. While Redis is unreachable each process
 * counts in its own memory instead (rate-limiter-flexible's insurance limiter), so requests never
 * fail because of Redis; counting returns to Redis as soon as the client reconnects.
 */
export function redisCounters(client: Redis): CounterStore {
  return {
    counter: (name, windowMs) =>
      new WindowCounter(
        new RateLimiterRedis({
          storeClient: client,
          keyPrefix: `petstore:rl:${name}`,
          points: UNBOUNDED,
          duration: windowMs / 1000,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory({
            keyPrefix: name,
            points: UNBOUNDED,
            duration: windowMs / 1000,
          }),
        }),
        windowMs,
      ),
  };
}
