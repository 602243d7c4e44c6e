import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.ts';
import { addressGroup } from '../domain/address-group.ts';
import type { ApiKey } from '../domain/api-keys.ts';
import type { Limits } from '../domain/plans.ts';
import {
  DAY_MS,
  decideRate,
  decideTakenBack,
  MINUTE_MS,
  type RateStatus,
  REJECTED_REQUESTS_BEFORE_BAN,
} from '../domain/rate-decision.ts';
import type { CounterStore, WindowCounter } from './ports/counters.ts';

/**
 * Per client address, for requests without a valid key and, in a budget of their own, for the
 * public routes: stricter than any plan, as the interface asks of unauthenticated traffic. Separate
 * budgets keep a client's stale key from using up its health checks, and the reverse.
 */
export const ANONYMOUS_LIMITS: Limits = Object.freeze({ perMinute: 20, perDay: 200 });

type Windows = { readonly minute: WindowCounter; readonly day: WindowCounter };

/** Counts a request against a key's plan, or against a client address, and says whether it may pass. */
export class RateLimiter {
  readonly #keys: Windows;
  /** The requests each key sent past its limit, per window: what bans count (see `limitKey`). */
  readonly #keysRefused: Windows;
  readonly #anonymous: Windows;
  readonly #public: Windows;

  readonly #anonymousLimits: Limits;

  /** `anonymousLimits`: per client address, for requests without a valid key and for public routes. */
  constructor(store: CounterStore, anonymousLimits: Limits = ANONYMOUS_LIMITS) {
    this.#anonymousLimits = anonymousLimits;
    this.#keys = windows(store, 'key');
    this.#keysRefused = windows(store, 'key-refused');
    this.#anonymous = windows(store, 'anonymous');
    this.#public = windows(store, 'public');
  }

  /**
   * Counts one request against the key's plan (GraphQL batching is off: one request is one
   * operation). A refused one is also counted among the requests the key sent past the limit of
   * the window that refused it, its `overLimitBy`: a count of its own, which only refusals raise,
   * so that each refusal sees its own number, the 11th included, however the plan's count moves
   * meanwhile (further points counted and taken back by other requests in flight).
   */
  limitKey(key: ApiKey, nowMs: number): MaybePromise<RateStatus> {
    return andThen(this.#countKey(key, nowMs, 1, false), (status) => {
      if (status.allowed) return status;
      const refusals = this.#keysRefused[status.window];
      const limit = REJECTED_REQUESTS_BEFORE_BAN + 1;
      return andThen(refusals.consume(key.keyId, nowMs, 1, limit), (overLimitBy) => ({
        ...status,
        overLimitBy,
      }));
    });
  }

  /**
   * Counts `points` more requests for a request `limitKey` counted already (a GraphQL document's
   * further mutation fields). Refused, they are all taken back, from both windows: the request has
   * counted once, as every refused request does, and the budget it would have overrun stays for
   * requests that fit. A key past its limit is refused by `limitKey` first, which is what counts
   * towards a ban.
   */
  limitKeyFurther(key: ApiKey, nowMs: number, points: number): MaybePromise<RateStatus> {
    return this.#countKey(key, nowMs, points, true);
  }

  #countKey(key: ApiKey, nowMs: number, points: number, further: boolean): MaybePromise<RateStatus> {
    return count({ windows: this.#keys, subject: key.keyId, limits: key.limits, nowMs, points, further });
  }

  limitAnonymous(address: string, nowMs: number): MaybePromise<RateStatus> {
    return this.#perAddress(this.#anonymous, address, nowMs);
  }

  limitPublic(address: string, nowMs: number): MaybePromise<RateStatus> {
    return this.#perAddress(this.#public, address, nowMs);
  }

  #perAddress(windows: Windows, address: string, nowMs: number): MaybePromise<RateStatus> {
    const subject = addressGroup(address);
    return count({ windows, subject, limits: this.#anonymousLimits, nowMs, points: 1, further: false });
  }
}

function windows(store: CounterStore, name: string): Windows {
  return { minute: store.counter(`${name}:m`, MINUTE_MS), day: store.counter(`${name}:d`, DAY_MS) };
}

/** One count: whose, against which limits, when, how many points, and whether further ones (see `limitKeyFurther`). */
type Counting = {
  readonly windows: Windows;
  readonly subject: string;
  readonly limits: Limits;
  readonly nowMs: number;
  readonly points: number;
  readonly further: boolean;
};

/**
 * Counts in both windows at once (with Redis, the two calls overlap instead of following each
 * other; in memory, both answer at once and so does this). A request the minute window refuses is
 * then taken back from the day, so that it does not use up the day; further points that either
 * window refuses are taken back from both.
 */
function count(counting: Counting): MaybePromise<RateStatus> {
  const { windows, subject, limits, nowMs, points } = counting;
  const minute = windows.minute.consume(subject, nowMs, points, limits.perMinute);
  const day = windows.day.consume(subject, nowMs, points, limits.perDay);
  if (!isPromise(minute) && !isPromise(day)) return decide(counting, minute, day);
  return Promise.all([minute, day]).then(([minuteCount, dayCount]) =>
    decide(counting, minuteCount, dayCount),
  );
}

function decide(counting: Counting, minute: number, day: number): MaybePromise<RateStatus> {
  const { windows, subject, limits, nowMs, points } = counting;
  const minuteRefused = minute > limits.perMinute;
  if (!counting.further) {
    const status = decideRate(nowMs, limits, minute, day);
    return minuteRefused ? andThen(windows.day.refund(subject, nowMs, points), () => status) : status;
  }
  if (!minuteRefused && day <= limits.perDay) return decideRate(nowMs, limits, minute, day);
  const takenBack = decideTakenBack(nowMs, limits, points, minute, day);
  const refunds = [windows.minute.refund(subject, nowMs, points), windows.day.refund(subject, nowMs, points)];
  return refunds.some(isPromise) ? Promise.all(refunds).then(() => takenBack) : takenBack;
}
