import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type {
  EventStore,
  RecordedEvent,
  SubscribeToAllOptions,
} from '../../src/application/ports/event-store.ts';
import { batchedSubscription } from '../../src/eventstore/subscription.ts';
import { ProjectionGroup } from '../../src/read-models/runner.ts';

/**
 * The store's checkpoints (KurrentDB's server-side filter checkpoints) move the group past events
 * its feed leaves out. A store that delivers one event at position 5, then reports a checkpoint at
 * 900 (say, a run of system events), then nothing.
 */
function storeWithCheckpointAfterOneEvent() {
  const event = {
    streamName: 'pet-1',
    revision: 0n,
    position: 5n,
    type: 'PetCreated',
    data: {},
    metadata: { eventId: 'e', occurredAt: 't', correlationId: 'c', schemaVersion: 1 },
  } satisfies RecordedEvent;
  const store = {
    headPosition: async () => 5n,
    subscribeToAll: (options: SubscribeToAllOptions = {}) => {
      let closed = false;
      async function* feed() {
        yield [event];
        options.onCheckpoint?.(900n);
        while (!closed) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return batchedSubscription(feed(), async () => {
        closed = true;
      });
    },
  } as unknown as EventStore;
  return store;
}

describe('ProjectionGroup with a store that reports checkpoints', () => {
  it('moves its checkpoint to the store’s checkpoint past the last event delivered', async () => {
    const store = storeWithCheckpointAfterOneEvent();
    const group = new ProjectionGroup({ store, logger: pino({ level: 'silent' }) });
    await group.start();
    await group.waitFor(900n);
    expect(group.checkpoint).toBe(900n);
    await group.stop();
  });
});
