import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { startForwarder } from '../../src/forwarding/forwarder.ts';
import {
  type CheckpointEvent,
  type EventPublisher,
  type OutgoingMessage,
  PublisherFencedError,
} from '../../src/forwarding/publisher.ts';
import { storeWith } from '../support/store-with.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * The forwarder's loop against a scripted publisher (the broker side is proven against a real
 * Kafka in kafka-forwarding.int.test.ts): what it checkpoints, and where it resumes.
 */
class ScriptedBroker {
  committed: OutgoingMessage[] = [];
  checkpoint: bigint | undefined;
  /** The event at `checkpoint`, as the forwarder wrote it. */
  checkpointEvent: CheckpointEvent | undefined;
  failNextPublishes = 0;
  fenceNextPublish = false;
  /** Kafka's message.max.bytes: a batch over it is refused (MESSAGE_TOO_LARGE), however often it is sent. */
  maxBatchBytes = Number.POSITIVE_INFINITY;

  publisher(): EventPublisher {
    return {
      connect: async () => {},
      readCheckpoint: async () =>
        this.checkpoint === undefined
          ? undefined
          : { position: this.checkpoint, event: this.checkpointEvent },
      publish: async (messages, checkpoint) => {
        if (this.fenceNextPublish) throw new PublisherFencedError(new Error('INVALID_PRODUCER_EPOCH'));
        if (batchBytes(messages) > this.maxBatchBytes)
          throw new Error(
            'The request included a message larger than the max message size the server will accept',
          );
        if (this.failNextPublishes > 0) {
          this.failNextPublishes -= 1;
          throw new Error('broker unreachable');
        }
        this.committed.push(...messages);
        this.checkpoint = checkpoint.position;
        this.checkpointEvent = checkpoint.event;
      },
      close: async () => {},
    };
  }
}

function batchBytes(messages: readonly OutgoingMessage[]): number {
  let bytes = 0;
  for (const { key, value, headers } of messages) {
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
    for (const [name, text] of Object.entries(headers))
      bytes += Buffer.byteLength(name) + Buffer.byteLength(text);
  }
  return bytes;
}

const quiet = { info: () => {}, warn: () => {} };
const temp = makeTempDir('petstore-forwarder-unit-');
let store: EventStore;
afterEach(async () => store?.close());

async function appendEvents(count: number): Promise<bigint[]> {
  const positions: bigint[] = [];
  for (let n = 0; n < count; n += 1) {
    const metadata = {
      eventId: randomUUID(),
      occurredAt: '2026-01-02T03:04:05.000Z',
      correlationId: 'c',
      schemaVersion: 1,
    };
    positions.push(
      (await store.appendToStream('pet-1', [{ type: 'PetCreated', data: { n }, metadata }])).position,
    );
  }
  return positions;
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function openStore(): EventStore {
  return openSqliteEventStore({ file: path.join(temp.dir, `${randomUUID()}.sqlite`), pollIntervalMs: 10 });
}

describe('forwarder', () => {
  it('resumes after the checkpoint the broker holds, skipping what was already published', async () => {
    store = openStore();
    const positions = await appendEvents(5);
    const broker = new ScriptedBroker();
    broker.checkpoint = positions[2];
    const forwarder = startForwarder({
      store,
      createPublisher: () => broker.publisher(),
      log: quiet,
      lingerMs: 1,
    });
    await until(() => broker.checkpoint === positions[4]);
    await forwarder.stop();
    expect(broker.committed.map((m) => JSON.parse(m.value).data.n)).toEqual([3, 4]);
  });

  it('forwards every event again when the checkpoint in Kafka is past the store’s last event (a store restored from a backup)', async () => {
    store = openStore();
    const positions = await appendEvents(3);
    const broker = new ScriptedBroker();
    broker.checkpoint = positions[2]! + 7n; // what the store held before it was restored
    const forwarder = startForwarder({
      store,
      createPublisher: () => broker.publisher(),
      log: quiet,
      lingerMs: 1,
    });
    await until(() => broker.checkpoint === positions[2]);
    await forwarder.stop();
    expect(broker.committed.map((m) => JSON.parse(m.value).data.n)).toEqual([0, 1, 2]);
  });

  it('forwards every event again when the event at the checkpoint is not the one Kafka acknowledged (a restored store that wrote past it)', async () => {
    store = openStore();
    const positions = await appendEvents(3);
    const broker = new ScriptedBroker();
    broker.checkpoint = positions[1];
    // The event the store held there before it was restored.
    broker.checkpointEvent = { id: randomUUID(), stream: 'pet-1', revision: 1n };
    const forwarder = startForwarder({
      store,
      createPublisher: () => broker.publisher(),
      log: quiet,
      lingerMs: 1,
    });
    await until(() => broker.checkpoint === positions[2]);
    await forwarder.stop();
    expect(broker.committed.map((m) => JSON.parse(m.value).data.n)).toEqual([0, 1, 2]);
  });

  it('resumes after a checkpoint whose event is the store’s own', async () => {
    store = openStore();
    const positions = await appendEvents(3);
    const [atCheckpoint] = await store.readStream('pet-1', { fromRevision: 1n, maxCount: 1 });
    const broker = new ScriptedBroker();
    broker.checkpoint = positions[1];
    broker.checkpointEvent = { id: atCheckpoint!.metadata.eventId, stream: 'pet-1', revision: 1n };
    const forwarder = startForwarder({
      store,
      createPublisher: () => broker.publisher(),
      log: quiet,
      lingerMs: 1,
    });
    await until(() => broker.checkpoint === positions[2]);
    await forwarder.stop();
    expect(broker.committed.map((m) => JSON.parse(m.value).data.n)).toEqual([2]);
  });

  it('looks the checkpoint’s event up in its stream, never reading the store at the checkpoint’s position', async () => {
    store = openStore();
    const positions = await appendEvents(3);
    // KurrentDB answers a read of $all from a position where no event starts (a restored store that
    // wrote past the checkpoint) with an error its client reports exactly as an outage.
    const kurrentLike = storeWith(store, {
      readAll: (options) => {
        if (options?.from !== undefined) throw new Error('UnavailableError');
        return store.readAll(options);
      },
    });
    const broker = new ScriptedBroker();
    broker.checkpoint = positions[1];
    broker.checkpointEvent = { id: randomUUID(), stream: 'pet-1', revision: 1n };
    const forwarder = startForwarder({
      store: kurrentLike,
      createPublisher: () => broker.publisher(),
      log: quiet,
      lingerMs: 1,
    });
    await until(() => broker.checkpoint === positions[2]);
    await forwarder.stop();
    expect(broker.committed.map((m) => JSON.parse(m.value).data.n)).toEqual([0, 1, 2]);
  });

  it('keeps the checkpoint where it was when a publish fails, and publishes the batch again', async () => {
    store = openStore();
    const positions = await appendEvents(3);
    const broker = new ScriptedBroker();
    broker.failNextPublishes = 2;
    const checkpoints: bigint[] = [];
    const forwarder = startForwarder({
      store,
      createPublisher: () => broker.publisher(),
      log: quiet,
      lingerMs: 1,
      retryDelayMs: 1,
      onCheckpoint: (position) => checkpoints.push(position),
    });
    await until(() => broker.checkpoint === positions[2]);
    await forwarder.stop();
    expect(checkpoints).toEqual([positions[2]]);
    expect(broker.committed.map((m) => JSON.parse(m.value).data.n)).toEqual([0, 1, 2]);
  });

  it('splits a backlog of large events into batches the broker accepts, instead of retrying one it refuses forever', async () => {
    store = openStore();
    // An order's note holds up to 500 code points, 2,000 bytes of emoji: 500 such events are over 1 MiB.
    const note = '\u{1F600}'.repeat(500);
    const events = Array.from({ length: 600 }, (_, n) => ({
      type: 'OrderPlaced',
      data: { n, note },
      metadata: {
        eventId: randomUUID(),
        occurredAt: '2026-01-02T03:04:05.000Z',
        correlationId: 'c',
        schemaVersion: 1,
      },
    }));
    const { position } = await store.appendToStream('order-1', events);
    const broker = new ScriptedBroker();
    broker.maxBatchBytes = 1_048_588; // Kafka's default message.max.bytes
    const forwarder = startForwarder({
      store,
      createPublisher: () => broker.publisher(),
      log: quiet,
      lingerMs: 1,
      retryDelayMs: 1,
    });
    await until(() => broker.checkpoint === position);
    await forwarder.stop();
    expect(broker.committed.map((m) => JSON.parse(m.value).data.n)).toEqual(events.map((_, n) => n));
  });

  it('stops for good when fenced by a newer forwarder', async () => {
    store = openStore();
    await appendEvents(1);
    const broker = new ScriptedBroker();
    broker.fenceNextPublish = true;
    const forwarder = startForwarder({
      store,
      createPublisher: () => broker.publisher(),
      log: quiet,
      lingerMs: 1,
    });
    await expect(forwarder.done).rejects.toBeInstanceOf(PublisherFencedError);
    expect(broker.committed).toEqual([]);
  });

  it('rewrites the checkpoint while the store is quiet, so the broker does not expire it', async () => {
    store = openStore();
    const [position] = await appendEvents(1);
    const broker = new ScriptedBroker();
    let publishes = 0;
    const publisher = broker.publisher();
    const counting: EventPublisher = {
      ...publisher,
      publish: (m, c) => ((publishes += 1), publisher.publish(m, c)),
    };
    const forwarder = startForwarder({
      store,
      createPublisher: () => counting,
      log: quiet,
      lingerMs: 1,
      checkpointRefreshMs: 10,
    });
    await until(() => publishes >= 3);
    await forwarder.stop();
    expect(broker.committed).toHaveLength(1);
    expect(broker.checkpoint).toBe(position);
  });
});
