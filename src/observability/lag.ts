import type { EventStore } from '../application/ports/event-store.ts';

/**
 * How far a reader of the store (a read model, the Kafka forwarder) is behind it: the age of the
 * oldest event it has not taken in yet, 0 when it has them all. Time rather than a count of
 * positions, because positions are not contiguous on KurrentDB. The age is measured from the event's
 * `occurredAt`, on the clock of the process that wrote it.
 */
export async function lagMs(
  store: EventStore,
  checkpoint: bigint | undefined,
  nowMs: number,
): Promise<number> {
  const next = store.readAll(checkpoint === undefined ? { maxCount: 1 } : { after: checkpoint, maxCount: 1 });
  for await (const event of next) {
    const occurredAt = Date.parse(event.metadata.occurredAt);
    return Number.isNaN(occurredAt) ? 0 : Math.max(0, nowMs - occurredAt);
  }
  return 0;
}

/** A reader of the store, as health checks and metrics see it. */
export type StoreReader = { readonly name: string; readonly checkpoint: bigint | undefined };
