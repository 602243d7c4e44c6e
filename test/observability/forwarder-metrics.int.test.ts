import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { startForwarder } from '../../src/forwarding/forwarder.ts';
import type { EventPublisher } from '../../src/forwarding/publisher.ts';
import { createMetrics, forwarderMetrics, type Metrics } from '../../src/observability/metrics/index.ts';
import { controlledClock } from '../support/guarded-app.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * The forwarder's metrics, from a real forwarder loop over a real store, with a publisher standing
 * in for Kafka (the broker side is proven in kafka-forwarding.int.test.ts) that fails once.
 */

const NOW = Date.UTC(2030, 0, 15, 10, 0, 0);
let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
});
afterEach(async () => {
  await store.close();
  temp.remove();
});

async function value(metrics: Metrics, name: string): Promise<number | undefined> {
  return (await metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value;
}

it('report the checkpoint, the lag and every failed session', async () => {
  let last = 0n;
  for (let i = 0; i < 3; i++) {
    const metadata = {
      eventId: randomUUID(),
      occurredAt: new Date(NOW - 30_000).toISOString(),
      correlationId: 'c',
      schemaVersion: 1,
    };
    last = (await store.appendToStream('pet-1', [{ type: 'PetCreated', data: { i }, metadata }])).position;
  }
  const metrics = createMetrics();
  const observer = forwarderMetrics(metrics, store, controlledClock(NOW));
  expect(await value(metrics, 'petstore_forwarder_position')).toBe(-1);
  expect(await value(metrics, 'petstore_forwarder_lag_seconds')).toBe(30);

  let failures = 1;
  let published = 0;
  const publisher = (): EventPublisher => ({
    connect: async () => {},
    readCheckpoint: async () => undefined,
    publish: async (messages) => {
      if (failures-- > 0) throw new Error('broker unreachable');
      published += messages.length;
    },
    close: async () => {},
  });
  const forwarder = startForwarder({
    store,
    createPublisher: publisher,
    log: { info: () => {}, warn: () => {} },
    retryDelayMs: 1,
    ...observer,
  });
  const deadline = Date.now() + 5_000;
  while (published < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  await forwarder.stop();

  expect(await value(metrics, 'petstore_forwarder_errors_total')).toBe(1);
  expect(await value(metrics, 'petstore_forwarder_position')).toBe(Number(last));
  expect(await value(metrics, 'petstore_forwarder_lag_seconds')).toBe(0);
});

it('report no position, and the age of the oldest event, once Kafka has lost the checkpoint (the topic deleted) until the events are on the topic again', async () => {
  const append = async (ageMs: number) =>
    (
      await store.appendToStream('pet-1', [
        {
          type: 'PetCreated',
          data: {},
          metadata: {
            eventId: randomUUID(),
            occurredAt: new Date(NOW - ageMs).toISOString(),
            correlationId: 'c',
            schemaVersion: 1,
          },
        },
      ])
    ).position;
  const first = await append(30_000);
  const metrics = createMetrics();
  // The broker: its checkpoint, and whether the topic is there to publish to.
  let checkpoint: bigint | undefined;
  let topicDeleted = false;
  let sessions = 0;
  const forwarder = startForwarder({
    store,
    createPublisher: () => ({
      connect: async () => {
        sessions += 1;
      },
      readCheckpoint: async () => (checkpoint === undefined ? undefined : { position: checkpoint }),
      publish: async (_, { position }) => {
        if (topicDeleted) throw new Error('This server does not host this topic-partition');
        checkpoint = position;
      },
      close: async () => {},
    }),
    log: { info: () => {}, warn: () => {} },
    retryDelayMs: 1,
    ...forwarderMetrics(metrics, store, controlledClock(NOW)),
  });
  const until = async (condition: () => boolean) => {
    const deadline = Date.now() + 5_000;
    while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  await until(() => checkpoint === first);
  expect(await value(metrics, 'petstore_forwarder_position')).toBe(Number(first));

  // The topic is deleted, and its group's offsets, the checkpoint, with it.
  topicDeleted = true;
  checkpoint = undefined;
  await append(5_000);
  await until(() => sessions >= 3);
  await forwarder.stop();

  expect(await value(metrics, 'petstore_forwarder_position')).toBe(-1);
  expect(await value(metrics, 'petstore_forwarder_lag_seconds')).toBe(30);
});
