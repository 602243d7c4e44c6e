import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { MaybePromise } from '../maybe-promise.ts';
import { secondsUntil, windowEnd, windowIndex } from './rate-decision.ts';

/**
 * Counts requests per subject in fixed, clock-aligned windows. Limits differ per key and plan, so
 * a counter only counts; the caller compares the count with the key's limit
 * (src/auth/rate-decision.ts). The window index is part of what is counted, so a new window starts
 * a new count at the same instant in every process, and a test's clock decides which window a
 * request falls in.
 *
 * In-process counters answer at once and shared ones (Redis) later: on the embedded default, the
 * guard then costs no promise on any request.
 */
export interface WindowCounter {
  /** Adds `points` to the subject's count for the window holding `nowMs`; gives the new count. */
  consume(subject: string, nowMs: number, points?: number): MaybePromise<number>;
  /** Takes back `points` that `consume` added in the same window. */
  refund(subject: string, nowMs: number, points?: number): MaybePromise<void>;
}

export type CounterStore = { counter(name: string, windowMs: number): WindowCounter };

/**
 * Counts in this process's memory. Only the counts of the current window and the one before it are
 * kept (a request stamped just before a boundary may still be counted or refunded after it); older
 * windows are dropped whole as soon as a new one starts, so memory holds one entry per subject
 * seen recently.
 */
export class MemoryWindowCounter implements WindowCounter {
  readonly #windowMs: number;
  readonly #windows = new Map<number, Map<string, number>>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  consume(subject: string, nowMs: number, points = 1): number {
    const counts = this.#counts(windowIndex(nowMs, this.#windowMs));
    const count = (counts.get(subject) ?? 0) + points;
    counts.set(subject, count);
    return count;
  }

  refund(subject: string, nowMs: number, points = 1): void {
    const counts = this.#windows.get(windowIndex(nowMs, this.#windowMs));
    const count = counts?.get(subject);
    if (counts === undefined || count === undefined) return;
    if (count <= points) counts.delete(subject);
    else counts.set(subject, count - points);
  }

  /** How many subjects have a count in memory, over every window kept. */
  get size(): number {
    let size = 0;
    for (const counts of this.#windows.values()) size += counts.size;
    return size;
  }

  #counts(index: number): Map<string, number> {
    let counts = this.#windows.get(index);
    if (counts === undefined) {
      counts = new Map();
      this.#windows.set(index, counts);
      for (const kept of this.#windows.keys()) if (kept < index - 1) this.#windows.delete(kept);
    }
    return counts;
  }
}

/**
 * Counts through a rate-limiter-flexible limiter: in Redis, atomically across processes (the
 * limiter's own memory fallback included). The limiter's own
 * `points` is left unbounded (the caller decides), and each count expires when its window ends, so
 * finished windows take no room in Redis.
 */
export class LimiterWindowCounter implements WindowCounter {
  readonly #limiter: RateLimiterAbstract;
  readonly #windowMs: number;

  constructor(limiter: RateLimiterAbstract, windowMs: number) {
    this.#limiter = limiter;
    this.#windowMs = windowMs;
  }

  async consume(subject: string, nowMs: number, points = 1): Promise<number> {
    const result = await this.#limiter.consume(this.#key(subject, nowMs), points, this.#expiry(nowMs));
    return result.consumedPoints;
  }

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

const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Counters in this process's memory: the embedded default. */
export function memoryCounters(): CounterStore {
  return { counter: (_name, windowMs) => new MemoryWindowCounter(windowMs) };
}

/**
 * Counters in Redis, shared by every process using it. While Redis is unreachable each process
 * counts in its own memory instead (rate-limiter-flexible's insurance limiter), so requests never
 * fail because of Redis; counting returns to Redis as soon as the client reconnects.
 */
export function redisCounters(client: Redis): CounterStore {
  return {
    counter: (name, windowMs) =>
      new LimiterWindowCounter(
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
