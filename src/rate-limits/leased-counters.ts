import type { CounterStore, WindowCounter } from '../application/ports/counters.ts';
import type { Clock } from '../shared/context.ts';
import { windowIndex } from '../domain/rate-decision.ts';
import type { MaybePromise } from '../shared/maybe-promise.ts';
import { takeOff } from './counts.ts';

/**
 * Exact rate limits across the worker processes of one `petstore start --workers N`, without
 * Redis and without a round trip per request. One broker (in the primary process) holds the count
 * of every subject in every window and hands tokens out; a worker admits requests from tokens it
 * holds, in memory and at once, and asks the broker for more only when it has none. The broker
 * never hands out more tokens than a window's limit, so the workers together never admit more than
 * the limit. Far from the limit (more than 10,000 left) it hands out some ahead (1/(64·workers) of
 * what is left, at most 1,000), so a busy key costs one message per many requests; nearer, one at
 * a time, so that tokens a worker holds unused turn nothing away that another worker would serve
 * (far from the limit, a key whose traffic moves between workers may be refused up to 1/64 of its
 * limit early, per worker, and only when it reaches it).
 * A request the limit refuses is counted at the broker too, so over-limit counts (and bans) are
 * exact; when such a request is refunded (the day window's count of a request the minute window
 * refused), the broker takes it back off, so a refund never becomes a token nobody was granted.
 * A request made just before a window ended may reach the broker after another worker's request of
 * the next window: the broker keeps the window before the current one for a moment, so that such a
 * request counts in its own window (a spent one refuses it) rather than in the next.
 */

export const COUNTER_CHANNEL = 'petstore-counters';

export type TakeRequest = {
  readonly channel: typeof COUNTER_CHANNEL;
  readonly id: number;
  readonly counter: string;
  readonly windowMs: number;
  readonly window: number;
  readonly subject: string;
  readonly points: number;
  readonly limit: number;
};

/** A refused request taken back: the broker lowers the subject's count (no reply). */
export type GiveBackRequest = Omit<TakeRequest, 'id' | 'limit'> & { readonly giveBack: true };

export type TakeReply = {
  readonly channel: typeof COUNTER_CHANNEL;
  readonly id: number;
  /** Tokens granted: `points` and maybe some to keep, or 0 when `points` would pass the limit. */
  readonly granted: number;
  /** The subject's count in the window after this request: what the worker reports as its count. */
  readonly count: number;
};

const MAX_LEASE = 1_000;
/** How long after a window ends the broker still counts the requests of it that were on their way. */
const LATE_MS = 1_000;
/** Below this many tokens left in a window, none are handed out ahead: every request asks. */
const LEASE_FROM = 10_000;

type WindowCounts = { readonly window: number; readonly counts: Map<string, number> };

/** The primary's side: the counts of every counter, subject and window. */
export class CounterBroker {
  readonly #workers: () => number;
  readonly #clock: Pick<Clock, 'nowMs'>;
  readonly #windows = new Map<string, { current: WindowCounts; previous?: WindowCounts }>();

  /** `workers`: how many processes share the limits now (the lease shrinks as they grow). */
  constructor(workers: () => number, clock: Pick<Clock, 'nowMs'>) {
    this.#workers = workers;
    this.#clock = clock;
  }

  take(request: Omit<TakeRequest, 'channel'>): Omit<TakeReply, 'channel'> {
    const counts = this.#countsOf(request.counter, request.window, request.windowMs);
    const count = counts.get(request.subject) ?? 0;
    const available = request.limit - count;
    if (available < request.points) {
      counts.set(request.subject, count + request.points);
      return { id: request.id, granted: 0, count: count + request.points };
    }
    const left = available - request.points;
    const spare =
      left > LEASE_FROM ? Math.min(MAX_LEASE, Math.floor(left / (64 * Math.max(1, this.#workers())))) : 0;
    const granted = request.points + spare;
    counts.set(request.subject, count + granted);
    return { id: request.id, granted, count: count + request.points };
  }

  /** Takes a refused request's points off the subject's count, if the broker still keeps its window. */
  giveBack(request: Omit<GiveBackRequest, 'channel'>): void {
    const kept = this.#kept(request.counter, request.windowMs);
    const counts = [kept?.current, kept?.previous].find((held) => held?.window === request.window)?.counts;
    if (counts !== undefined) takeOff(counts, request.subject, request.points);
  }

  /**
   * The counts of a counter's newest window, and of the one before it for LATE_MS after it ended. A
   * request of a window that ended longer ago (or of a window that never came before this one, from a
   * clock behind) is counted in the newest: counted in nothing kept, each would be the first of its
   * window, and a clock stepped back by more than a window would lift the limits until it caught up.
   */
  #countsOf(counter: string, window: number, windowMs: number): Map<string, number> {
    const kept = this.#kept(counter, windowMs);
    if (kept === undefined || window > kept.current.window) {
      const counts = new Map<string, number>();
      this.#windows.set(counter, { current: { window, counts }, ...(kept && { previous: kept.current }) });
      return counts;
    }
    if (window === kept.current.window) return kept.current.counts;
    return kept.previous?.window === window ? kept.previous.counts : kept.current.counts;
  }

  /** What the broker keeps of a counter, once a previous window past LATE_MS is dropped. */
  #kept(counter: string, windowMs: number) {
    const kept = this.#windows.get(counter);
    if (
      kept?.previous !== undefined &&
      this.#clock.nowMs() >= (kept.previous.window + 1) * windowMs + LATE_MS
    )
      delete kept.previous;
    return kept;
  }
}

/**
 * What a worker holds of a subject's window: tokens granted and not yet used, and how many of its
 * requests the broker refused and no refund has taken back yet.
 */
type Lease = { window: number; tokens: number; base: number; used: number; refused: number };

type Take = (request: Omit<TakeRequest, 'channel' | 'id'>) => Promise<TakeReply>;
type GiveBack = (request: Omit<GiveBackRequest, 'channel'>) => void;

/** A worker's side: counters that admit from tokens held, ask `take` for more, and `giveBack` refused requests. */
export function leasedCounters(take: Take, giveBack: GiveBack): CounterStore {
  return { counter: (name, windowMs) => new LeasedWindowCounter(name, windowMs, take, giveBack) };
}

class LeasedWindowCounter implements WindowCounter {
  readonly #name: string;
  readonly #windowMs: number;
  readonly #take: Take;
  readonly #giveBack: GiveBack;
  #leases = new Map<string, Lease>();
  #window = Number.NaN;

  constructor(name: string, windowMs: number, take: Take, giveBack: GiveBack) {
    this.#name = name;
    this.#windowMs = windowMs;
    this.#take = take;
    this.#giveBack = giveBack;
  }

  consume(subject: string, nowMs: number, points = 1, limit = Number.MAX_SAFE_INTEGER): MaybePromise<number> {
    const window = windowIndex(nowMs, this.#windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#leases = new Map();
    }
    const lease = this.#leases.get(subject);
    if (lease !== undefined && lease.tokens >= points) {
      lease.tokens -= points;
      lease.used += points;
      return lease.base + lease.used;
    }
    const request = { counter: this.#name, windowMs: this.#windowMs, window, subject, points, limit };
    return this.#take(request).then((reply) => {
      if (window !== this.#window) return reply.count;
      const held = this.#leases.get(subject);
      if (reply.granted === 0) {
        if (held === undefined)
          this.#leases.set(subject, {
            window,
            tokens: 0,
            base: reply.count - points,
            used: points,
            refused: 1,
          });
        else held.refused += 1;
        return reply.count;
      }
      const tokens = reply.granted - points + (held?.tokens ?? 0);
      const refused = held?.refused ?? 0;
      this.#leases.set(subject, { window, tokens, base: reply.count - points, used: points, refused });
      return reply.count;
    });
  }

  /**
   * Takes back a request that `consume` counted (the rate limiter refunds the day window when the
   * minute window refused, and both windows for a GraphQL document's further points either
   * refused): a refused request's points come off the broker's count. A granted one's tokens
   * return to this worker's lease, for its next request, only while it holds tokens handed out
   * ahead (far from the limit); nearer, they too go back to the broker, for whichever worker asks
   * next, as no worker holds tokens there that another would need.
   */
  refund(subject: string, nowMs: number, points = 1): void {
    const lease = this.#leases.get(subject);
    const window = windowIndex(nowMs, this.#windowMs);
    if (lease === undefined || window !== this.#window) return;
    if (lease.refused === 0 && lease.tokens > 0) {
      lease.tokens += points;
      lease.used -= points;
      return;
    }
    if (lease.refused > 0) lease.refused -= 1;
    this.#giveBack({
      counter: this.#name,
      windowMs: this.#windowMs,
      window,
      subject,
      points,
      giveBack: true,
    });
  }
}
