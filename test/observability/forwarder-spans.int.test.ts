import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { startForwarder } from '../../src/forwarding/forwarder.ts';
import type { EventPublisher, OutgoingMessage } from '../../src/forwarding/publisher.ts';
import { loadObservability, type Observability } from '../../src/observability/index.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * The forwarder's spans, from a real forwarder loop over a real store whose appends were traced,
 * with a publisher standing in for Kafka (the broker side is proven in kafka-forwarding.int.test.ts)
 * that fails once: a failed send and a successful one, each linked to the requests it carried.
 */

const TOPIC = 'petstore.events';
const exporter = new InMemorySpanExporter();
let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
let observability: Observability;
let appends: ReadableSpan[];
let sends: ReadableSpan[];
let published: OutgoingMessage[];

beforeAll(async () => {
  temp = makeTempDir('petstore-forwarder-spans-');
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  observability = await loadObservability(
    { metrics: { port: undefined, host: '127.0.0.1' }, tracing: { otlpEndpoint: undefined } },
    { spanProcessors: [new SimpleSpanProcessor({ exporter })] },
  );
  const traced = observability.wrapStore(store);
  for (const id of [1, 2]) {
    const metadata = {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      schemaVersion: 1,
    };
    await traced.appendToStream(`pet-${id}`, [{ type: 'PetCreated', data: { id }, metadata }]);
  }

  let failures = 1;
  published = [];
  const publisher = (): EventPublisher => ({
    connect: async () => {},
    readCheckpoint: async () => undefined,
    publish: async (messages) => {
      if (failures-- > 0) throw new Error('broker unreachable');
      published.push(...messages);
    },
    close: async () => {},
  });
  const forwarder = startForwarder({
    ...observability.forwarder(store, TOPIC),
    store,
    createPublisher: publisher,
    log: { info: () => {}, warn: () => {} },
    retryDelayMs: 10,
  });
  const deadline = Date.now() + 5_000;
  while (published.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await forwarder.stop();
  appends = exporter.getFinishedSpans().filter((span) => span.name === 'eventstore.append');
  sends = exporter.getFinishedSpans().filter((span) => span.name === `send ${TOPIC}`);
});

afterAll(async () => {
  await observability.close();
  await store.close();
  temp.remove();
});

it('makes a producer span for each batch sent, the failed one marked as an error with its exception', () => {
  expect(published).toHaveLength(2);
  expect(sends.map((span) => [span.kind, span.status.code])).toEqual([
    [SpanKind.PRODUCER, SpanStatusCode.ERROR],
    [SpanKind.PRODUCER, SpanStatusCode.UNSET],
  ]);
  expect(sends[0]!.events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([
    ['exception', 'broker unreachable'],
  ]);
});

it("names the topic, the batch's size and its positions in OpenTelemetry's messaging attributes", () => {
  expect(sends[1]!.attributes).toEqual({
    'messaging.system': 'kafka',
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'send',
    'messaging.destination.name': TOPIC,
    'messaging.batch.message_count': 2,
    'petstore.position.first': '1',
    'petstore.position.last': '2',
  });
});

it('links each send to the append of every event it carries, in their own traces', () => {
  expect(appends).toHaveLength(2);
  const appended = appends.map((span) => [span.spanContext().traceId, span.spanContext().spanId]);
  for (const send of sends) {
    expect(send.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual(appended);
    expect(appended.map(([traceId]) => traceId)).not.toContain(send.spanContext().traceId);
  }
});
