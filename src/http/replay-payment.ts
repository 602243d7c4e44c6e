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
 * points fit or the replay has ended: one refusal for the metrics, however long it waits. Any other
 * refusal (a ban) rejects, which ends the stream.
 */
export function payFromBudget(reply: FastifyReply): PayForReads {
  return async (requests, ended) => {
    // One at a time: however many are due, each fits a budget that has room for one.
    let askingAgain = false;
    for (let paid = 0; paid < requests && !ended.aborted;) {
      try {
        await reply.consumeRateLimit(1, { askingAgain });
        paid += 1;
        askingAgain = false;
      } catch (error) {
        if (!(error instanceof RateLimitedError)) throw error;
        askingAgain = true;
        await delay(ASK_AGAIN_MS, undefined, { signal: ended }).catch(() => {});
      }
    }
  };
}
