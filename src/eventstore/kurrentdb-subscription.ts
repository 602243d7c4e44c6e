import type { AllStreamResolvedEvent, AllStreamSubscription, Position } from '@kurrent/kurrentdb-client';
import type { RecordedEvent, Subscription } from '../application/ports/event-store.ts';
import { packPosition } from './kurrentdb-position.ts';
import { type KurrentDbLog, toRecordedEvent } from './kurrentdb-mapping.ts';
import { eventByEventSubscription } from './subscription.ts';

export type ResubscribingOptions = {
  readonly after: bigint | undefined;
  /**
   * Opens a server subscription delivering events after the given packed position, with a filter
   * whose `checkpointReached` is `markFilterCheckpoint`.
   */
  readonly open: (after: bigint | undefined) => AllStreamSubscription;
  readonly log: KurrentDbLog;
  readonly firstDelayMs: number;
  readonly onClose: () => void;
  /** See `SubscribeToAllOptions.onCheckpoint`. */
  readonly onCheckpoint?: (position: bigint) => void;
};

const MAX_DELAY_MS = 5_000;

/** A server-side filter checkpoint, travelling in the subscription's stream among its events. */
class FilterCheckpoint {
  readonly position: Position;
  constructor(position: Position) {
    this.position = position;
  }
}

/**
 * The filter's `checkpointReached`. The client calls it while transforming the server's messages,
 * before it reads the next one, so pushing the checkpoint into the subscription's own stream puts
 * it after every event that preceded it: whoever reads it there has taken all of those events
 * (calling `onCheckpoint` from here could run ahead of events still buffered in the stream).
 */
export function markFilterCheckpoint(subscription: AllStreamSubscription, position: Position): void {
  subscription.push(new FilterCheckpoint(position));
}

/**
 * A `$all` subscription that survives drops. The client does not resume a subscription whose
 * connection failed or that the server ended, so this one reopens it from its checkpoint: the
 * position of the last event it delivered, or the server filter's last checkpoint past it, so
 * that a reopened subscription does not scan again the events the filter left out. Events at or
 * before the checkpoint are skipped, so a reopened subscription never delivers an event twice.
 * The server subscription is cancelled however the iteration ends (close, break, error).
 */
export function resubscribingSubscription(options: ResubscribingOptions): Subscription {
  let closed = false;
  let current: AllStreamSubscription | undefined;
  let cancelSleep: (() => void) | undefined;

  async function* events(): AsyncGenerator<RecordedEvent> {
    let checkpoint = options.after;
    let delayMs = options.firstDelayMs;
    try {
      while (!closed) {
        current = options.open(checkpoint);
        try {
          for await (const item of current as AsyncIterable<AllStreamResolvedEvent | FilterCheckpoint>) {
            if (closed) return;
            if (item instanceof FilterCheckpoint) {
              const position = packPosition(item.position);
              if (checkpoint !== undefined && position <= checkpoint) continue;
              checkpoint = position;
              options.onCheckpoint?.(position);
              continue;
            }
            if (!item.event) continue;
            const position = packPosition(item.event.position);
            if (checkpoint !== undefined && position <= checkpoint) continue;
            const event = toRecordedEvent(item.event, position, options.log);
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
    } finally {
      // A consumer breaking out of its loop ends up here too: without this, the server would
      // keep the subscription open and go on sending to a stream nobody reads.
      await close();
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

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    cancelSleep?.();
    options.onClose();
    await current?.unsubscribe().catch(() => {});
  }

  return eventByEventSubscription(events(), close);
}
