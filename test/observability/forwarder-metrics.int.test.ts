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
