import { RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { CounterStore, WindowCounter } from '../application/ports/counters.ts';
import { secondsUntil, windowEnd, windowIndex } from '../domain/rate-decision.ts';
import { takeOff } from './counts.ts';

/**
 * Counts in this process's memory, for the window of the latest request only: when a request
 * falls in another window, the counts start again from nothing and the old ones are dropped at
 * once, so memory holds one entry per subject seen in the current window. A request always counts
 * in its own window, the one its X-RateLimit-Reset names, as with Redis. The guard reads the
 * clock and counts in one synchronous step, so in one process only a clock stepped back moves the
 * window backwards; the counts of the window it leaves are then lost, as a restart would lose them.
 */
export class MemoryWindowCounter implements WindowCounter {
  readonly #windowMs: number;
  #window = Number.NaN;
  #counts = new Map<string, number>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  consume(subject: string, nowMs: number, points = 1): number {
    const counts = this.#countsAt(nowMs);
    const count = (counts.get(subject) ?? 0) + points;
    counts.set(subject, count);
    return count;
  }

  refund(subject: string, nowMs: number, points = 1): void {
    if (windowIndex(nowMs, this.#windowMs) !== this.#window) return;
    takeOff(this.#counts, subject, points);
  }

  /** How many subjects have a count in memory. */
  get size(): number {
    return this.#counts.size;
  }

  #countsAt(nowMs: number): Map<string, number> {
    const window = windowIndex(nowMs, this.#windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts = new Map();
    }
    return this.#counts;
  }
}

/**
 * Counts through a rate-limiter-flexible limiter: in Redis, atomically across processes; a count
 * Redis does not take rejects (see FallbackWindowCounter). The limiter's own `points` is left unbounded (the caller decides), and each count expires when its window ends, so
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

/** Told of every count in Redis: that Redis answered, or why it did not. */
export type SharedCountsHealth = { answered(): void; failed(error: unknown): void };

/**
 * Counters in Redis, shared by every process using it. While Redis fails (unreachable, stalled,
 * full) each process counts in its own memory instead, so requests never fail because of Redis;
 * counting returns to Redis as soon as it answers again. `health` hears of each outcome.
 */
export function redisCounters(client: Redis, health: SharedCountsHealth): CounterStore {
  return {
    counter: (name, windowMs) =>
      new FallbackWindowCounter(
        new LimiterWindowCounter(
          new RateLimiterRedis({
            storeClient: client,
            keyPrefix: `petstore:rl:${name}`,
            points: UNBOUNDED,
            duration: windowMs / 1000,
            rejectIfRedisNotReady: true,
          }),
          windowMs,
        ),
        new MemoryWindowCounter(windowMs),
        health,
      ),
  };
}

/** Counts through `shared`, and through `local` whenever `shared` fails, telling `health` which. */
export class FallbackWindowCounter implements WindowCounter {
  readonly #shared: WindowCounter;
  readonly #local: WindowCounter;
  readonly #health: SharedCountsHealth;

  constructor(shared: WindowCounter, local: WindowCounter, health: SharedCountsHealth) {
    this.#shared = shared;
    this.#local = local;
    this.#health = health;
  }

  async consume(subject: string, nowMs: number, points = 1, limit?: number): Promise<number> {
    try {
      const count = await this.#shared.consume(subject, nowMs, points, limit);
      this.#health.answered();
      return count;
    } catch (error) {
      this.#health.failed(error);
      return this.#local.consume(subject, nowMs, points, limit);
    }
  }

  async refund(subject: string, nowMs: number, points = 1): Promise<void> {
    try {
      await this.#shared.refund(subject, nowMs, points);
      this.#health.answered();
    } catch (error) {
      this.#health.failed(error);
      await this.#local.refund(subject, nowMs, points);
    }
  }
}
