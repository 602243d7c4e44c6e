import type { RecordedEvent, Subscription } from '../application/ports/event-store.ts';

/**
 * Subscriptions from a feed of batches (stores that read many events per query) or of single
 * events (stores that push one at a time): either way the subscription offers both views.
 */

export function batchedSubscription(
  batches: AsyncIterable<readonly RecordedEvent[]>,
  close: () => Promise<void>,
): Subscription {
  return { batches: () => batches, [Symbol.asyncIterator]: () => flatten(batches), close };
}

export function eventByEventSubscription(
  events: AsyncIterable<RecordedEvent>,
  close: () => Promise<void>,
): Subscription {
  return {
    batches: () => singles(events),
    [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
    close,
  };
}

async function* flatten(batches: AsyncIterable<readonly RecordedEvent[]>): AsyncGenerator<RecordedEvent> {
  for await (const batch of batches) yield* batch;
}

async function* singles(events: AsyncIterable<RecordedEvent>): AsyncGenerator<readonly RecordedEvent[]> {
  for await (const event of events) yield [event];
}
