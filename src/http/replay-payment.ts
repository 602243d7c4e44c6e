import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';
import type { PayForReads } from '../application/index.ts';
import { RateLimitedError } from '../shared/auth-errors.ts';

/**
 * How often a replay whose key has spent its budget asks again: as soon as a Retry-After can say (it
 * is at least 1 s), and soon after a larger plan gives the key room, which no Retry-After foretells.
 */
const ASK_AGAIN_MS = 1000;

/**
 * A replay's reads, paid from the budget of the key that opened the stream (see
 * src/application/queries/replay-cost.ts), as further requests of the request that opened it:
 * refused ones are taken back and do not count towards a ban. While the budget is spent, the replay
 * waits (the stream stays open, idle but for its heartbeats) and asks again every second until the
 * points fit or `signal` aborts (the stream ended): one refusal
 * for the metrics, however long it waits. Any other refusal (a ban) rejects, which ends the stream.
 */
export function payFromBudget(reply: FastifyReply, signal: AbortSignal): PayForReads {
  return async (requests) => {
    // One at a time: however many are due, each fits a budget that has room for one.
    let askingAgain = false;
    for (let paid = 0; paid < requests && !signal.aborted;) {
      try {
        await reply.consumeRateLimit(1, { askingAgain });
        paid += 1;
        askingAgain = false;
      } catch (error) {
        if (!(error instanceof RateLimitedError)) throw error;
        askingAgain = true;
        await delay(ASK_AGAIN_MS, undefined, { signal }).catch(() => {});
      }
    }
  };
}

/** A subscription resumed after a position, as the application starts one: a replay, and its end. */
type Resume<T> = (listener: (item: T) => void) => {
  readonly replayed: AsyncIterable<T>;
  readonly unsubscribe: () => void;
};

/**
 * `resume`'s subscription with its replay paid from the budget of `reply`'s key (`payFromBudget`):
 * its `unsubscribe` also ends a payment's wait, so that a stream that has ended stops waiting for
 * the budget. Rejects as `resume` does (a bad position fails the request, not the stream).
 */
export async function paidResume<T>(
  reply: FastifyReply,
  resume: (pay: PayForReads) => Promise<Resume<T>>,
): Promise<Resume<T>> {
  const ended = new AbortController();
  const start = await resume(payFromBudget(reply, ended.signal));
  return (listener) => {
    const { replayed, unsubscribe } = start(listener);
    const stop = () => {
      ended.abort();
      unsubscribe();
    };
    return { replayed, unsubscribe: stop };
  };
}
