import { Kafka, Partitioners, logLevel, type Admin, type LogEntry, type Producer } from 'kafkajs';
import { type EventPublisher, type OutgoingMessage, PublisherFencedError } from './publisher.ts';

/**
 * The EventPublisher on kafkajs, with Kafka transactions:
 *
 * - Single publisher: every forwarder of a topic uses the same transactional id. Claiming it
 *   (InitProducerId) bumps the producer epoch on the broker, which fences every earlier holder,
 *   in any process on any machine, and aborts its open transaction.
 * - Checkpoint: each batch is one transaction that also commits a consumer-group offset for
 *   group `<transactional id>` on partition 0 of the topic, whose metadata holds the store
 *   position (a decimal string; offsets are int64, KurrentDB positions are wider). So the
 *   checkpoint is stored exactly when the batch is, and never before Kafka acknowledged it.
 *
 * Consumers must read with isolation level read_committed (the kafkajs and Java defaults differ:
 * Java defaults to read_uncommitted) so that they never see a batch that was aborted.
 */

export type KafkaJsPublisherOptions = {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly topic: string;
  readonly log: { warn(details: object, message: string): void };
  /** The broker aborts a transaction left open this long (a forwarder killed mid-batch). */
  readonly transactionTimeoutMs?: number;
  /** How long one connection attempt may take. */
  readonly connectionTimeoutMs?: number;
};

/** Shared by every forwarder of a topic: the identity the broker fences on. */
export function forwarderIdentity(topic: string): string {
  return `petstore-forwarder.${topic}`;
}

export function createKafkaJsPublisher(options: KafkaJsPublisherOptions): EventPublisher {
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2_000 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...details } = entry.log;
      options.log.warn({ kafkajs: entry.namespace, ...details }, message);
    },
  });
  return new KafkaJsPublisher(kafka, options);
}

const FENCED = new Set([
  'INVALID_PRODUCER_EPOCH',
  'PRODUCER_FENCED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
]);

class KafkaJsPublisher implements EventPublisher {
  readonly #identity: string;
  readonly #topic: string;
  readonly #admin: Admin;
  readonly #producer: Producer;

  constructor(kafka: Kafka, options: KafkaJsPublisherOptions) {
    this.#topic = options.topic;
    this.#identity = forwarderIdentity(options.topic);
    this.#admin = kafka.admin();
    this.#producer = kafka.producer({
      transactionalId: this.#identity,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: options.transactionTimeoutMs ?? 30_000,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  async connect(): Promise<void> {
    await this.#admin.connect();
    // An existing topic keeps the partitions its operator gave it; a new one gets the broker's default.
    if (!(await this.#admin.listTopics()).includes(this.#topic)) {
      await this.#admin.createTopics({ topics: [{ topic: this.#topic }], waitForLeaders: true });
    }
    await this.#producer.connect();
    // kafkajs claims the transactional id lazily, on the first transaction: claim it now.
    await fencedAware(async () => (await this.#producer.transaction()).abort());
  }

  async readCheckpoint(): Promise<bigint | undefined> {
    const [topic] = await this.#admin.fetchOffsets({ groupId: this.#identity, topics: [this.#topic] });
    const metadata = topic?.partitions.find((p) => p.partition === 0)?.metadata;
    return metadata ? BigInt(metadata) : undefined;
  }

  publish(messages: readonly OutgoingMessage[], checkpoint: bigint): Promise<void> {
    return fencedAware(async () => {
      const transaction = await this.#producer.transaction();
      try {
        if (messages.length > 0) {
          await transaction.send({
            topic: this.#topic,
            messages: messages.map((m) => ({ key: m.key, value: m.value, headers: { ...m.headers } })),
          });
        }
        const partition = { partition: 0, offset: '0', metadata: checkpoint.toString() };
        await transaction.sendOffsets({
          consumerGroupId: this.#identity,
          topics: [{ topic: this.#topic, partitions: [partition] }],
        });
        await transaction.commit();
      } catch (error) {
        if (transaction.isActive()) await transaction.abort().catch(() => {});
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#producer.disconnect(), this.#admin.disconnect()]);
  }
}

async function fencedAware<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isFenced(error) ? new PublisherFencedError(error) : error;
  }
}

/** kafkajs wraps protocol errors in retry errors; the fencing one may sit a few causes deep. */
function isFenced(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; depth += 1) {
    if (FENCED.has((e as { type?: string }).type ?? '')) return true;
    e =
      (e as { cause?: unknown; originalError?: unknown }).cause ??
      (e as { originalError?: unknown }).originalError;
  }
  return false;
}
