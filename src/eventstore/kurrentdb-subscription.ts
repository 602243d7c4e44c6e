import type { AllStreamSubscription } from '@kurrent/kurrentdb-client';
import type { RecordedEvent, Subscription } from '../application/ports/event-store.ts';
import { packPosition } from './kurrentdb-position.ts';
import { type KurrentDbLog, toRecordedEvent } from './kurrentdb-mapping.ts';
import { eventByEventSubscription } from './subscription.ts';

export type ResubscribingOptions = {
  readonly after: bigint | undefined;
  /** Opens a server subscription delivering events after the given packed position. */
  readonly open: (after: bigint | undefined) => AllStreamSubscription;
  readonly log: KurrentDbLog;
  readonly firstDelayMs: number;
  readonly onClose: () => void;
};

const MAX_DELAY_MS = 5_000;

/**
 * A `$all` subscription that survives drops. The client does not resume a subscription whose
 * connection failed or that the server ended, so this one reopens it from the position of the
 * last event it delivered (its checkpoint), with a doubling delay. Events at or before the
 * checkpoint are skipped, so a reopened subscription never delivers an event twice.
 */
export function resubscribingSubscription(options: ResubscribingOptions): Subscription {
  let closed = false;
  let current: AllStreamSubscription | undefined;
  let cancelSleep: (() => void) | undefined;

  async function* events(): AsyncGenerator<RecordedEvent> {
    let checkpoint = options.after;
    let delayMs = options.firstDelayMs;
    while (!closed) {
      current = options.open(checkpoint);
      try {
        for await (const resolved of current) {
          if (closed) return;
          if (!resolved.event) continue;
          const position = packPosition(resolved.event.position);
          if (checkpoint !== undefined && position <= checkpoint) continue;
          const event = toRecordedEvent(resolved.event, position, options.log);
          if (event !== undefined) yield event;
          checkpoint = position;
          delayMs = options.firstDelayMs;
        }
        if (closed) return;
        options.log.warn(
          { checkpoint: String(checkpoint) },
          'KurrentDB ended the subscription; resubscribing',
        );
      } catch (error) {
        if (closed) return;
        options.log.warn(
          { err: error, checkpoint: String(checkpoint) },
          'KurrentDB subscription dropped; resubscribing',
        );
      }
      await sleep(delayMs);
      delayMs = Math.min(delayMs * 2, MAX_DELAY_MS);
    }
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      cancelSleep = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  return eventByEventSubscription(events(), async () => {
    if (closed) return;
    closed = true;
    cancelSleep?.();
    options.onClose();
    await current?.unsubscribe().catch(() => {});
  });
}
