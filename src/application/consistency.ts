import { AppError, ValidationError } from '../shared/errors.ts';
import type { RequestContext } from '../shared/context.ts';
import type { MaybePromise } from '../shared/maybe-promise.ts';
import type { EventStore } from './ports/event-store.ts';
import type { ReadModelProgress } from './ports/read-models.ts';
import { parsePosition } from './queries/positions.ts';

/**
 * Consistency across processes (README, "Several API processes"): every write tells the client the
 * store position of its last event, and any read may ask to be answered only once this process's
 * read models include a position, waiting up to a bound.
 */

/** The read models did not reach the position a request asked for within the bound. */
export class PositionNotReachedError extends AppError {
  constructor(position: bigint, waitedMs: number) {
    super(
      'position_not_reached',
      503,
      `This server's read models did not reach store position ${position} within ${waitedMs} ms; retry shortly, or ask another server.`,
      { 'Retry-After': '1' },
    );
  }
}

export function consistency(deps: {
  readonly store: EventStore;
  readonly progress: ReadModelProgress;
  readonly minPositionWaitMs: number;
}) {
  const { store, progress, minPositionWaitMs } = deps;

  async function waitWithin(position: bigint): Promise<void> {
    const head = await store.headPosition();
    if (head === undefined || position > head) {
      throw new ValidationError(
        `X-Min-Position ${position} is past the store's last event: only send positions this service gave.`,
        'X-Min-Position',
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new PositionNotReachedError(position, minPositionWaitMs)),
        minPositionWaitMs,
      );
    });
    try {
      // A read model that stopped (the server is closing) will not reach it either.
      const reached = progress.waitFor(position).catch(() => timedOut);
      await Promise.race([reached, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /**
     * Tells the request the position of a write's last event or, for a write that appended nothing
     * (a change that changed nothing, an idempotent replay), the store's head: what the answer may
     * reflect is at or before it. Commands' results pass through unchanged.
     */
    async withPosition<R extends { readonly position?: bigint | undefined }>(
      context: RequestContext,
      result: Promise<R>,
    ): Promise<R> {
      const done = await result;
      const position = done.position ?? (await store.headPosition());
      if (position !== undefined) context.recordPosition?.(position);
      return done;
    },

    /**
     * Resolves once this process's read models include `position` (at once when they do); 503 past
     * the bound. A position past the store's last event was not given by this store: 400, at once
     * (a wait for it would never end).
     */
    awaitPosition(raw: string): MaybePromise<void> {
      const position = parsePosition(raw, 'X-Min-Position');
      const reached = progress.checkpoint;
      if (reached !== undefined && reached >= position) return undefined;
      return waitWithin(position);
    },
  };
}
