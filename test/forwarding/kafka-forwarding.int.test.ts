import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore, NewEvent } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { startConfiguredForwarder } from '../../src/forwarding/from-config.ts';
import { type Forwarder, startForwarder } from '../../src/forwarding/forwarder.ts';
import { createKafkaJsPublisher, forwarderIdentity } from '../../src/forwarding/kafkajs-publisher.ts';
import { toKafkaMessage } from '../../src/forwarding/message.ts';
import { type EventPublisher, PublisherFencedError } from '../../src/forwarding/publisher.ts';
import { canRun } from '../support/availability.ts';
import { type KafkaBroker, localKafkaUnavailable, startKafkaBroker } from '../support/kafka-broker.ts';
import { ForwarderProcess } from '../support/kafka-forwarder-process.ts';
import { type ConsumedMessage, TopicReader } from '../support/kafka-topic.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/service.ts';

/**
 * The forwarder against a real Kafka broker (KRaft, local JVM process; see kafka-broker.ts).
 * Under CI=true nothing here may skip: a broker that cannot start fails the suite.
 */

const unavailable = process.env.KAFKA_TESTCONTAINERS === 'true' ? undefined : localKafkaUnavailable();
canRun('Kafka forwarding', unavailable); // one line saying why not, or under CI=true an error

const quiet = { info: () => {}, warn: () => {} };
const WAIT_MS = 30_000;

describe.skipIf(unavailable !== undefined)(
  `Kafka forwarding${unavailable ? ` (not run: ${unavailable})` : ''}`,
  () => {
    let broker: KafkaBroker;
    const temp = makeTempDir('petstore-forwarding-');
    const cleanups: Array<() => Promise<void>> = [];

    beforeAll(async () => {
      broker = await startKafkaBroker();
    }, 90_000);

    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
      await broker?.destroy();
      temp.remove();
    }, 60_000);

    /** A fresh store file and topic for one test, and a reader of that topic. */
    async function scenario(): Promise<{
      dataDir: string;
      store: EventStore;
      topic: string;
      reader: TopicReader;
    }> {
      const dataDir = path.join(temp.dir, randomUUID());
      const store = openSqliteEventStore({ file: path.join(dataDir, 'events.sqlite'), pollIntervalMs: 20 });
      const topic = `petstore.events.${randomUUID()}`;
      const reader = await TopicReader.start(broker.brokers, topic);
      cleanups.push(
        () => reader.stop(),
        () => store.close(),
      );
      return { dataDir, store, topic, reader };
    }

    function inProcessForwarder(store: EventStore, topic: string): Forwarder {
      const forwarder = startConfiguredForwarder(
        { kafka: { brokers: broker.brokers, topic, clientId: 'test', inProcessForwarder: true } },
        store,
        quiet,
      );
      cleanups.push(() => forwarder.stop());
      return forwarder;
    }

    function forwarderProcess(
      dataDir: string,
      topic: string,
      env: Record<string, string> = {},
    ): ForwarderProcess {
      const child = new ForwarderProcess({
        PETSTORE_DATA_DIR: dataDir,
        KAFKA_BROKERS: broker.brokers.join(','),
        KAFKA_TOPIC: topic,
        ...env,
      });
      cleanups.push(() => child.kill());
      return child;
    }

    it('publishes each event with the documented key, value and headers, in order within each stream', async () => {
      const { store, topic, reader } = await scenario();
      inProcessForwarder(store, topic);
      const streams = [`pet-${randomUUID()}`, `pet-${randomUUID()}`, `pet-${randomUUID()}`];
      const appended = await appendRoundRobin(store, streams, 30);
      await reader.waitFor((r) => r.messages.length >= 30, WAIT_MS, '30 events');

      const first = appended[0]!;
      const message = reader.messages.find((m) => m.headers['event-id'] === first.event.metadata.eventId)!;
      expect(message.key).toBe(first.stream);
      expect(message.headers).toEqual({
        'event-id': first.event.metadata.eventId,
        'event-type': 'PetCreated',
        'schema-version': '1',
        position: first.position.toString(),
        'content-type': 'application/json',
        'correlation-id': first.event.metadata.correlationId,
      });
      expect(JSON.parse(message.value)).toEqual({
        eventId: first.event.metadata.eventId,
        type: 'PetCreated',
        streamName: first.stream,
        revision: '0',
        position: first.position.toString(),
        data: { n: 0 },
        metadata: first.event.metadata,
      });
      expect(reader.messages).toHaveLength(30);
      for (const stream of streams) expect(revisionsOf(reader.messages, stream)).toEqual(range(10));
    });

    it('creates a missing topic that keeps every event (retention.ms -1), so that it stays a complete record', async () => {
      const store = openSqliteEventStore({ file: path.join(temp.dir, randomUUID(), 'events.sqlite') });
      cleanups.push(() => store.close());
      const topic = `petstore.events.${randomUUID()}`;
      await appendRoundRobin(store, [`pet-${randomUUID()}`], 1);
      const admin = new Kafka({
        clientId: 'test-admin',
        brokers: broker.brokers,
        logLevel: logLevel.NOTHING,
      }).admin();
      await admin.connect();
      cleanups.push(() => admin.disconnect());

      inProcessForwarder(store, topic);
      const deadline = Date.now() + WAIT_MS;
      while (!(await admin.listTopics()).includes(topic) && Date.now() < deadline) await sleep(50);

      const { resources } = await admin.describeConfigs({
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }],
        includeSynonyms: false,
      });
      expect(resources[0]?.configEntries.map((e) => [e.configName, e.configValue])).toEqual([
        ['retention.ms', '-1'],
      ]);
    });

    it('forwards a pet’s changes and its order, each stream in order under its own key', async () => {
      const { dataDir, store, topic, reader } = await scenario();
      inProcessForwarder(store, topic);
      const config = loadConfig({ NODE_ENV: 'test', PETSTORE_DATA_DIR: dataDir });
      const service = await startService(config, pino({ level: 'silent' }), { store });
      cleanups.push(() => service.stop());
      const context = { correlationId: randomUUID() };
      const { pet } = await service.application.createPet(
        { name: 'Rex', categoryId: 1, status: 'available' },
        context,
      );
      await service.application.updatePet(pet.id, { name: 'Max' }, context);
      const { order } = await service.application.placeOrder({ petId: pet.id }, context);
      await service.application.completeOrder(order.id, context);
      const typesOf = (stream: string) =>
        reader.messages.filter((m) => m.key === stream).map((m) => m.headers['event-type']);
      await reader.waitFor(
        (r) => r.messages.some((m) => m.headers['event-type'] === 'OrderCompleted'),
        WAIT_MS,
        'the completion',
      );
      expect(typesOf(`pet-${pet.id}`)).toEqual([
        'PetCreated',
        'PetRenamed',
        'PetStatusChanged',
        'PetStatusChanged',
      ]);
      expect(revisionsOf(reader.messages, `pet-${pet.id}`)).toEqual(range(4));
      expect(typesOf(`order-${order.id}`)).toEqual(['OrderPlaced', 'OrderCompleted']);
      expect(revisionsOf(reader.messages, `order-${order.id}`)).toEqual(range(2));
    });

    it('loses nothing when the forwarder process is killed mid-stream and restarted', async () => {
      const { dataDir, store, topic, reader } = await scenario();
      const streams = Array.from({ length: 5 }, () => `pet-${randomUUID()}`);
      const firstRun = forwarderProcess(dataDir, topic);
      const writing = appendRoundRobin(store, streams, 1500, 10);
      await reader.waitFor((r) => r.messages.length >= 200, WAIT_MS, 'the first 200 events');
      await firstRun.kill();
      const seenAtCrash = reader.messages.length;
      const appended = await writing;
      forwarderProcess(dataDir, topic);
      await reader.waitFor(
        (r) => r.deduplicated().length >= 1500,
        60_000,
        'all 1500 events after the restart',
      );

      expect(seenAtCrash).toBeLessThan(1500);
      expect(eventIds(reader.deduplicated())).toEqual(new Set(appended.map((a) => a.event.metadata.eventId)));
      for (const stream of streams) expect(revisionsOf(reader.deduplicated(), stream)).toEqual(range(300));
    });

    it('exports a span for each batch the forwarder process sends, over OTLP, when OTEL_EXPORTER_OTLP_ENDPOINT is set', async () => {
      const { dataDir, store, topic, reader } = await scenario();
      const bodies: Buffer[] = [];
      const collector = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          bodies.push(Buffer.concat(chunks));
          response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        });
      });
      collector.listen(0, '127.0.0.1');
      await once(collector, 'listening');
      cleanups.push(() => new Promise((resolve) => collector.close(() => resolve())));
      const { port } = collector.address() as AddressInfo;
      forwarderProcess(dataDir, topic, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
      await appendRoundRobin(store, [`pet-${randomUUID()}`], 3);
      await reader.waitFor((r) => r.messages.length >= 3, WAIT_MS, '3 events');
      const sent = (body: Buffer) =>
        body.includes(`send ${topic}`) && body.includes('messaging.destination.name');
      const deadline = Date.now() + 10_000;
      while (!bodies.some(sent) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

      expect(bodies.some(sent)).toBe(true);
    });

    it('loses nothing when the broker is down for a while', async () => {
      const { store, topic, reader } = await scenario();
      const stream = `pet-${randomUUID()}`;
      inProcessForwarder(store, topic);
      await appendRoundRobin(store, [stream], 20);
      await reader.waitFor((r) => r.messages.length >= 20, WAIT_MS, 'events before the outage');

      await broker.stop();
      const duringOutage = await appendRoundRobin(store, [stream], 50, 0, 20);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await broker.start();
      await reader.waitFor((r) => r.deduplicated().length >= 70, 60_000, 'events appended during the outage');

      expect(
        reader
          .deduplicated()
          .map((m) => m.headers['event-id'])
          .slice(20),
      ).toEqual(duringOutage.map((a) => a.event.metadata.eventId));
      expect(revisionsOf(reader.deduplicated(), stream)).toEqual(range(70));
    }, 120_000);

    it('forwards every event of a store restored from a backup that has written past the checkpoint before the forwarder started', async () => {
      const { store, topic, reader } = await scenario();
      await appendRoundRobin(store, [`pet-${randomUUID()}`], 3);
      const before = inProcessForwarder(store, topic);
      await reader.waitFor((r) => r.messages.length >= 3, WAIT_MS, 'the events before the restore');
      await before.stop();
      // The restored store: its own events at positions 1 to 5, past the checkpoint (3), written
      // while the forwarder was not running (Kafka unreachable, or the API listening first).
      const restored = openSqliteEventStore({ file: path.join(temp.dir, randomUUID(), 'events.sqlite') });
      cleanups.push(() => restored.close());
      const written = await appendRoundRobin(restored, [`pet-${randomUUID()}`], 5);

      inProcessForwarder(restored, topic);
      const ids = written.map((a) => a.event.metadata.eventId);
      await reader.waitFor(
        (r) => ids.every((id) => eventIds(r.messages).has(id)),
        WAIT_MS,
        'the restored store’s events',
      );
    });

    it('lets a consumer that drops duplicates by event id see each event exactly once after a replay', async () => {
      const { store, topic, reader } = await scenario();
      const stream = `pet-${randomUUID()}`;
      const appended = await appendRoundRobin(store, [stream], 20);
      const first = inProcessForwarder(store, topic);
      await reader.waitFor((r) => r.messages.length >= 20, WAIT_MS, 'the first pass');
      await first.stop();
      // A checkpoint older than what was published (as after a lost checkpoint commit): events replay.
      const publisher = createKafkaJsPublisher({
        brokers: broker.brokers,
        clientId: 'test',
        topic,
        log: quiet,
      });
      await publisher.connect();
      await publisher.publish([], {
        position: appended[9]!.position,
        event: { id: appended[9]!.event.metadata.eventId, stream, revision: 9n },
      });
      await publisher.close();
      inProcessForwarder(store, topic);
      await reader.waitFor((r) => r.messages.length >= 30, WAIT_MS, 'the replayed events');

      expect(reader.messages).toHaveLength(30);
      expect(reader.deduplicated().map((m) => m.headers['event-id'])).toEqual(
        appended.map((a) => a.event.metadata.eventId),
      );
    });

    it('forwards from inside the API process when KAFKA_FORWARDER=true', async () => {
      const { dataDir, store, topic, reader } = await scenario();
      const api = new ForwarderProcess(
        {
          PETSTORE_DATA_DIR: dataDir,
          KAFKA_BROKERS: broker.brokers.join(','),
          KAFKA_TOPIC: topic,
          KAFKA_FORWARDER: 'true',
          PORT: '0',
        },
        'start',
      );
      cleanups.push(() => api.kill());
      await api.waitForOutput('in-process forwarder started', WAIT_MS);
      const appended = await appendRoundRobin(store, [`pet-${randomUUID()}`], 5);
      await reader.waitFor((r) => r.messages.length >= 5, WAIT_MS, 'events forwarded by the API process');

      expect(reader.messages.map((m) => m.headers['event-id'])).toEqual(
        appended.map((a) => a.event.metadata.eventId),
      );
    });

    it('tells a transaction the broker timed out from a takeover by a newer forwarder', async () => {
      const { store, topic } = await scenario();
      const [appended] = await appendRoundRobin(store, [`pet-${randomUUID()}`], 1);
      const [recorded] = await store.readStream(appended!.stream);
      const message = toKafkaMessage(recorded!);
      const publisher = (owner: string) =>
        createKafkaJsPublisher({
          brokers: broker.brokers,
          clientId: 'test',
          topic,
          log: quiet,
          owner,
          takeoverGraceMs: 200,
        });
      const first = publisher('first');
      cleanups.push(() => first.close());
      await first.connect();

      // What a timed-out transaction looks like: the epoch moves on, the checkpoint is still ours.
      await bumpEpochWithoutCheckpoint(topic);
      const timedOut = await first
        .publish([message], { position: appended!.position })
        .catch((error: unknown) => error);
      expect(timedOut).toBeInstanceOf(Error);
      expect(timedOut).not.toBeInstanceOf(PublisherFencedError);
      expect((timedOut as Error).message).toContain('open past its timeout');

      const again = publisher('first');
      cleanups.push(() => again.close());
      await again.connect();
      const newer = publisher('second');
      cleanups.push(() => newer.close());
      await newer.connect();
      const takenOver = await again
        .publish([message], { position: appended!.position })
        .catch((error: unknown) => error);
      expect(takenOver).toBeInstanceOf(PublisherFencedError);
    });

    it('resumes and loses nothing when a broker pause outlasts the transaction timeout', async () => {
      const { store, topic, reader } = await scenario();
      const streams = [`pet-${randomUUID()}`, `pet-${randomUUID()}`];
      let pauseDuringPublish = false;
      let paused: Promise<void> | undefined;
      const forwarder = startForwarder({
        store,
        log: quiet,
        lingerMs: 1,
        retryDelayMs: 100,
        maxRetryDelayMs: 1_000,
        createPublisher: () =>
          pausingMidBatch(
            createKafkaJsPublisher({
              brokers: broker.brokers,
              clientId: 'test',
              topic,
              log: quiet,
              owner: 'under-test',
              transactionTimeoutMs: 2_000,
              takeoverGraceMs: 500,
            }),
            () => {
              if (!pauseDuringPublish) return;
              pauseDuringPublish = false;
              // Long enough for the broker to time the open transaction out once it runs again.
              paused = (async () => {
                await sleep(5);
                await broker.pause();
                await sleep(6_000);
                await broker.resume();
              })();
            },
          ),
      });
      cleanups.push(() => forwarder.stop());
      let ended = false;
      forwarder.done.then(
        () => (ended = true),
        () => (ended = true),
      );

      const before = await appendRoundRobin(store, streams, 20);
      await reader.waitFor((r) => r.messages.length >= 20, WAIT_MS, 'events before the pause');
      pauseDuringPublish = true;
      const during = await appendRoundRobin(store, streams, 100, 0, 20);
      await paused;
      const after = await appendRoundRobin(store, streams, 20);
      const all = [...before, ...during, ...after];
      await reader.waitFor((r) => r.deduplicated().length >= all.length, 60_000, 'every event');

      expect(ended).toBe(false);
      expect(reader.deduplicated().map((m) => m.headers['event-id'])).toHaveLength(all.length);
      expect(eventIds(reader.deduplicated())).toEqual(new Set(all.map((a) => a.event.metadata.eventId)));
      for (const stream of streams) expect(revisionsOf(reader.deduplicated(), stream)).toEqual(range(70));
    }, 120_000);

    /** Claims the forwarders' transactional id, as a broker timing a transaction out does, and nothing more. */
    async function bumpEpochWithoutCheckpoint(topic: string): Promise<void> {
      const kafka = new Kafka({
        clientId: 'test-epoch',
        brokers: broker.brokers,
        logLevel: logLevel.NOTHING,
      });
      const producer = kafka.producer({
        transactionalId: forwarderIdentity(topic),
        idempotent: true,
        maxInFlightRequests: 1,
      });
      await producer.connect();
      await (await producer.transaction()).abort();
      await producer.disconnect();
    }

    it('lets only one of two forwarder processes publish: the newer fences the older, which exits', async () => {
      const { dataDir, store, topic, reader } = await scenario();
      const stream = `pet-${randomUUID()}`;
      const older = forwarderProcess(dataDir, topic);
      await appendRoundRobin(store, [stream], 10);
      await reader.waitFor((r) => r.messages.length >= 10, WAIT_MS, 'events from the first forwarder');
      const newer = forwarderProcess(dataDir, topic);
      await newer.waitForOutput('forwarder resumes after its checkpoint', WAIT_MS);
      await appendRoundRobin(store, [stream], 10);
      await reader.waitFor((r) => r.messages.length >= 20, WAIT_MS, 'events from the second forwarder');
      const olderExit = await Promise.race([older.exited, sleep(WAIT_MS).then(() => 'still running')]);

      expect(olderExit).toBe(0);
      expect(older.output.join('')).toContain('Another forwarder took over publishing to this topic');
      expect(newer.running).toBe(true);
      expect(reader.messages).toHaveLength(20);
      expect(revisionsOf(reader.messages, stream)).toEqual(range(20));
    });
  },
);

type Appended = { stream: string; event: NewEvent; position: bigint };

/** The publisher, calling `onPublish` as each publish starts (a transaction is about to open). */
function pausingMidBatch(publisher: EventPublisher, onPublish: () => void): EventPublisher {
  return {
    connect: () => publisher.connect(),
    readCheckpoint: () => publisher.readCheckpoint(),
    publish: (messages, checkpoint) => {
      const publishing = publisher.publish(messages, checkpoint);
      if (messages.length > 0) onPublish();
      return publishing;
    },
    close: () => publisher.close(),
  };
}

/** Appends `count` events one by one, cycling through the streams, `pauseMs` apart. */
async function appendRoundRobin(
  store: EventStore,
  streams: string[],
  count: number,
  pauseEvery = 0,
  pauseMs = 1,
): Promise<Appended[]> {
  const appended: Appended[] = [];
  for (let n = 0; n < count; n += 1) {
    const stream = streams[n % streams.length]!;
    const event: NewEvent = {
      type: 'PetCreated',
      data: { n },
      metadata: {
        eventId: randomUUID(),
        occurredAt: '2026-01-02T03:04:05.000Z',
        correlationId: randomUUID(),
        schemaVersion: 1,
      },
    };
    const { position } = await store.appendToStream(stream, [event]);
    appended.push({ stream, event, position });
    if (pauseEvery > 0 && n % pauseEvery === 0) await sleep(pauseMs);
    else if (pauseEvery === 0 && pauseMs > 1) await sleep(pauseMs);
  }
  return appended;
}

function revisionsOf(messages: ConsumedMessage[], stream: string): number[] {
  return messages.filter((m) => m.key === stream).map((m) => Number(JSON.parse(m.value).revision));
}

function eventIds(messages: ConsumedMessage[]): Set<string> {
  return new Set(messages.map((m) => m.headers['event-id']!));
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
