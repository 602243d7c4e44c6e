import type { Limits } from './plans.ts';

/**
 * Pure rate-limit arithmetic over two fixed windows, a UTC minute and a UTC day. Windows are
 * aligned to the clock, not to a client's first request, so every process agrees on when a
 * window ends and `X-RateLimit-Reset` is the same whichever process answers.
 */

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** A key that sends this many more requests than its limit within one window is banned. */
export const REJECTED_REQUESTS_BEFORE_BAN = 10;

export type RateStatus = {
  readonly allowed: boolean;
  /** The window that binds now: the one with fewer requests left (on a tie, the day). */
  readonly window: 'minute' | 'day';
  /** The limits of both windows, as counted. */
  readonly limits: Limits;
  /** The limit of the window that binds now. */
  readonly limit: number;
  readonly remaining: number;
  /** Unix seconds at which the binding window ends. */
  readonly reset: number;
  /** Whole seconds until a request can succeed; 0 when allowed. */
  readonly retryAfter: number;
  /** Requests sent past the binding window's limit, this one included; 0 when allowed. */
  readonly overLimitBy: number;
};

/** The number of the clock-aligned window holding `nowMs`: the same in every process. */
export function windowIndex(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs);
}

/** Unix seconds at which the window holding `nowMs` ends. */
export function windowEnd(nowMs: number, windowMs: number): number {
  return ((windowIndex(nowMs, windowMs) + 1) * windowMs) / 1000;
}

/**
 * The verdict once this request is counted in both windows (one the minute refuses is taken back
 * off the day afterwards). A request both windows refuse is refused by the day (the binding window
 * on a tie): the minute's end would only bring another refusal.
 */
export function decideRate(
  nowMs: number,
  limits: Limits,
  minuteConsumed: number,
  dayConsumed: number,
): RateStatus {
  const dayReset = windowEnd(nowMs, DAY_MS);
  if (dayConsumed > limits.perDay)
    return refused(nowMs, limits, 'day', dayReset, dayConsumed - limits.perDay);
  const minuteReset = windowEnd(nowMs, MINUTE_MS);
  if (minuteConsumed > limits.perMinute) {
    return refused(nowMs, limits, 'minute', minuteReset, minuteConsumed - limits.perMinute);
  }
  const minuteLeft = limits.perMinute - minuteConsumed;
  const dayLeft = limits.perDay - dayConsumed;
  return minuteLeft < dayLeft
    ? {
        allowed: true,
        window: 'minute',
        limits,
        limit: limits.perMinute,
        remaining: minuteLeft,
        reset: minuteReset,
        retryAfter: 0,
        overLimitBy: 0,
      }
    : {
        allowed: true,
        window: 'day',
        limits,
        limit: limits.perDay,
        remaining: dayLeft,
        reset: dayReset,
        retryAfter: 0,
        overLimitBy: 0,
      };
}

/**
 * The verdict on `points` further requests (a GraphQL document's mutation fields past the first)
 * that took the counts to `minuteConsumed` and `dayConsumed` and that a window refuses: they are
 * taken back, so it describes the window that binds once they are (the one with fewer requests
 * left, as for any request), and it can be retried once every window that refuses them has ended
 * (the day, when it does: the minute's end would bring a refusal again).
 */
export function decideTakenBack(
  nowMs: number,
  limits: Limits,
  points: number,
  minuteConsumed: number,
  dayConsumed: number,
): RateStatus {
  const after = decideRate(nowMs, limits, minuteConsumed - points, dayConsumed - points);
  const until = dayConsumed > limits.perDay ? windowEnd(nowMs, DAY_MS) : windowEnd(nowMs, MINUTE_MS);
  return { ...after, allowed: false, retryAfter: secondsUntil(nowMs, until * 1000), overLimitBy: 0 };
}

function refused(
  nowMs: number,
  limits: Limits,
  window: 'minute' | 'day',
  reset: number,
  overLimitBy: number,
): RateStatus {
  return {
    allowed: false,
    window,
    limits,
    limit: window === 'minute' ? limits.perMinute : limits.perDay,
    remaining: 0,
    reset,
    retryAfter: secondsUntil(nowMs, reset * 1000),
    overLimitBy,
  };
}

/** Whole seconds from `nowMs` until `untilMs`, rounded up, at least 1. */
export function secondsUntil(nowMs: number, untilMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}

/**
 * True for exactly the one request that takes a key past the ban threshold in a window (a refused
 * request counts one, whatever its points: see the rate limiter).
 */
export function crossesBanThreshold(status: RateStatus): boolean {
  return status.overLimitBy === REJECTED_REQUESTS_BEFORE_BAN + 1;
}
