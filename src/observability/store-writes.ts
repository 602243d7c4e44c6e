import type { Logger } from 'pino';
import {
  type EventStore,
  StoreBrokenError,
  StoreUnavailableError,
} from '../application/ports/event-store.ts';
import type { Clock } from '../shared/context.ts';
import type { AppendObserver } from './observed-store.ts';

/**
 * Whether the store takes writes, as the appends of this process find it: refusing from the first
 * append that fails with StoreUnavailableError (a full disk, a held write lock, KurrentDB out of
 * reach) until the next that succeeds, or a probe (`store.checkWritable()`) finds it writable. Each
 * change is one log line, never one per request: the 503s in between carry no stack and are not
 * logged as faults. Readiness answers not ready while the store refuses (see readiness.ts). A store
 * broken for good (StoreBrokenError: a restart is the cure) is handed to `onBroken`, once.
 */
export type StoreWrites = {
  /** Sees every append (see observeAppends): the only way it learns of a refusal or a recovery. */
  readonly observer: AppendObserver;
  /** Why the store refuses writes, or undefined while it takes them. */
  refusal(): StoreUnavailableError | undefined;
  /** Asks the store whether it takes writes again; true once it does (and says so in the log). */
  probe(): Promise<boolean>;
};

export function watchStoreWrites(
  store: Pick<EventStore, 'checkWritable'>,
  logger: Pick<Logger, 'warn' | 'info'>,
  clock: Clock,
  /** Called once, on the first append that finds the store broken for good (StoreBrokenError). */
  onBroken: (error: StoreBrokenError) => void = () => {},
): StoreWrites {
  let broken = false;
  let refusing: { error: StoreUnavailableError; sinceMs: number; refused: number } | undefined;
  const refused = (error: StoreUnavailableError) => {
    if (refusing !== undefined) {
      refusing.error = error;
      refusing.refused += 1;
      return;
    }
    refusing = { error, sinceMs: clock.nowMs(), refused: 1 };
    logger.warn(
      { reason: error.reason, detail: error.detail },
      `the event store refuses writes: ${error.detail}; writes are answered 503 store_unavailable and this process is not ready until it takes them again`,
    );
  };
  const recovered = (by: 'an append' | 'a probe') => {
    if (refusing === undefined) return;
    logger.info(
      {
        reason: refusing.error.reason,
        refusedMs: clock.nowMs() - refusing.sinceMs,
        refused: refusing.refused,
      },
      `the event store takes writes again (${by} succeeded)`,
    );
    refusing = undefined;
  };
  return {
    observer: async (events, append) => {
      try {
        const result = await append(events);
        recovered('an append');
        return result;
      } catch (error) {
        if (error instanceof StoreUnavailableError) refused(error);
        else if (error instanceof StoreBrokenError && !broken) {
          broken = true;
          onBroken(error);
        }
        throw error;
      }
    },
    refusal: () => refusing?.error,
    async probe() {
      if (refusing === undefined) return true;
      try {
        await store.checkWritable();
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        if (refusing !== undefined) refusing.error = error; // an append may have succeeded meanwhile
        return refusing === undefined;
      }
      recovered('a probe');
      return true;
    },
  };
}
