import type { MaybePromise } from '../../shared/maybe-promise.ts';

/**
 * Counts requests per subject in fixed, clock-aligned windows. Limits differ per key and plan, so
 * a counter only counts; the caller compares the count with the key's limit
 * (src/domain/rate-decision.ts). The window index is part of what is counted, so a new window starts
 * a new count at the same instant in every process, and a test's clock decides which window a
 * request falls in.
 *
 * In-process counters answer at once and shared ones (Redis) later: on the embedded default, the
 * guard then costs no promise on any request.
 */
export interface WindowCounter {
  /**
   * Adds `points` to the subject's count for the window holding `nowMs`; gives the new count.
   * `limit` is the window's limit: counters that share tokens between processes hand out no more;
   * others only count.
   */
  consume(subject: string, nowMs: number, points?: number, limit?: number): MaybePromise<number>;
  /** Takes back `points` that `consume` added in the same window. */
  refund(subject: string, nowMs: number, points?: number): MaybePromise<void>;
}

export type CounterStore = { counter(name: string, windowMs: number): WindowCounter };
