import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel, type Admin, type LogEntry, type Producer } from 'kafkajs';
import {
  type Checkpoint,
  type CheckpointEvent,
  type EventPublisher,
  type OutgoingMessage,
  PublisherFencedError,
} from './publisher.ts';

/**
 * The EventPublisher on kafkajs, with Kafka transactions:
 *
 * - Single publisher: every forwarder of a topic uses the same transactional id. Claiming it
 *   (InitProducerId) bumps the producer epoch on the broker, which fences every earlier holder,
 *   in any process on any machine, and aborts its open transaction.
 * - Checkpoint: each batch is one transaction that also commits a consumer-group offset for
 *   group `<transactional id>` on partition 0 of the topic, whose metadata holds the store
 *   position (a decimal string; offsets are int64, KurrentDB positions are wider), the event
 *   there (its id, stream and revision), and the owner, the id of the forwarder that wrote it. So
 *   the checkpoint is stored exactly when the batch is, and never before Kafka acknowledged it.
 * - Fenced, or timed out? The broker fences a producer both when another one claims the id and
 *   when a transaction stays open past `transactionTimeoutMs` (it aborts it and bumps the epoch),
 *   with the same error codes. A claimant writes its owner id into the checkpoint as soon as it
 *   has claimed (`connect`), so a fenced publisher that still finds its own owner id there, after
 *   giving a claimant `takeoverGraceMs` to write its own, was only timed out: it fails with an
 *   ordinary error, and the forwarder reconnects. Only a real takeover is `PublisherFencedError`.
 * - Bounded retries: kafkajs retries an idempotent producer's sends without limit by default;
 *   here a send gives up after three attempts of `transactionTimeoutMs / 5` each, before the
 *   broker would time its transaction out.
 *
 * Consumers must read with isolation level read_committed (the kafkajs and Java defaults differ:
 * Java defaults to read_uncommitted) so that they never see a batch that was aborted.
 */

export type KafkaJsPublisherOptions = {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly topic: string;
  readonly log: { warn(details: object, message: string): void };
  /** Identifies this forwarder in the checkpoint; the same for all its sessions. Random if absent. */
  readonly owner?: string;
  /** The broker aborts a transaction left open this long (a forwarder killed mid-batch). */
  readonly transactionTimeoutMs?: number;
  /** How long one connection attempt may take. */
  readonly connectionTimeoutMs?: number;
  /** How long a fenced publisher lets a newer one take to write its owner id, before checking. */
  readonly takeoverGraceMs?: number;
};

/** The checkpoint as stored in the offset commit's metadata: JSON, or a bare decimal (older releases). */
type StoredCheckpoint = {
  readonly position: bigint | undefined;
  /** The event at `position` (absent in checkpoints written before it was kept). */
  readonly event?: CheckpointEvent | undefined;
  readonly owner: string | undefined;
};

/** Shared by every forwarder of a topic: the identity the broker fences on. */
export function forwarderIdentity(topic: string): string {
  return `petstore-forwarder.${topic}`;
}

export function createKafkaJsPublisher(options: KafkaJsPublisherOptions): EventPublisher {
  const transactionTimeoutMs = options.transactionTimeoutMs ?? 30_000;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: Math.max(1_000, Math.floor(transactionTimeoutMs / 5)),
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2_000 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...details } = entry.log;
      // Bounded retries are deliberate: a failed batch is aborted and published again.
      if (message.startsWith('Limiting retries for the idempotent producer')) return;
      options.log.warn({ kafkajs: entry.namespace, ...details }, message);
    },
  });
  return new KafkaJsPublisher(kafka, { ...options, transactionTimeoutMs });
}

const FENCED = new Set([
  'INVALID_PRODUCER_EPOCH',
  'PRODUCER_FENCED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
]);

class KafkaJsPublisher implements EventPublisher {
  readonly #identity: string;
  readonly #topic: string;
  readonly #owner: string;
  readonly #takeoverGraceMs: number;
  readonly #admin: Admin;
  readonly #producer: Producer;
  #closed = false;
  #endGrace: (() => void) | undefined;

  constructor(kafka: Kafka, options: KafkaJsPublisherOptions & { transactionTimeoutMs: number }) {
    this.#topic = options.topic;
    this.#identity = forwarderIdentity(options.topic);
    this.#owner = options.owner ?? randomUUID();
    this.#takeoverGraceMs = options.takeoverGraceMs ?? 5_000;
    this.#admin = kafka.admin();
    this.#producer = kafka.producer({
      transactionalId: this.#identity,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: options.transactionTimeoutMs,
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1_000 },
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  async connect(): Promise<void> {
    await this.#admin.connect();
    // An existing topic keeps the partitions and retention its operator gave it; a new one gets the
    // broker's default partition count, and keeps every event (the broker's default retention, 7
    // days, would leave a consumer reading from the beginning a history without its start).
    if (!(await this.#admin.listTopics()).includes(this.#topic)) {
      await this.#admin.createTopics({
        topics: [{ topic: this.#topic, configEntries: [{ name: 'retention.ms', value: '-1' }] }],
        waitForLeaders: true,
      });
    }
    await this.#producer.connect();
    // kafkajs claims the transactional id lazily, on the first transaction: claim it now, then
    // sign the checkpoint, so that an earlier holder fenced from now on can tell it was taken over.
    await this.#fencedAware(async () => (await this.#producer.transaction()).abort());
    await this.#commit([], await this.readCheckpoint());
  }

  async readCheckpoint(): Promise<Checkpoint | undefined> {
    const { position, event } = await this.#fetchCheckpoint();
    return position === undefined ? undefined : { position, event };
  }

  publish(messages: readonly OutgoingMessage[], checkpoint: Checkpoint): Promise<void> {
    return this.#commit(messages, checkpoint);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#endGrace?.();
    await Promise.allSettled([this.#producer.disconnect(), this.#admin.disconnect()]);
  }

  #commit(messages: readonly OutgoingMessage[], checkpoint: Checkpoint | undefined): Promise<void> {
    return this.#fencedAware(() =>
      retryingConcurrentTransactions(() => this.#transaction(messages, checkpoint)),
    );
  }

  async #transaction(
    messages: readonly OutgoingMessage[],
    checkpoint: Checkpoint | undefined,
  ): Promise<void> {
    const transaction = await this.#producer.transaction();
    try {
      if (messages.length > 0) {
        await transaction.send({
          topic: this.#topic,
          messages: messages.map((m) => ({ key: m.key, value: m.value, headers: { ...m.headers } })),
        });
      }
      const metadata = JSON.stringify({
        position: checkpoint?.position.toString(),
        eventId: checkpoint?.event?.id,
        stream: checkpoint?.event?.stream,
        revision: checkpoint?.event?.revision.toString(),
        owner: this.#owner,
      });
      const partition = { partition: 0, offset: '0', metadata };
      await transaction.sendOffsets({
        consumerGroupId: this.#identity,
        topics: [{ topic: this.#topic, partitions: [partition] }],
      });
      await transaction.commit();
    } catch (error) {
      if (transaction.isActive()) await transaction.abort().catch(() => {});
      throw error;
    }
  }

  #graceForAClaimant(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.#takeoverGraceMs);
      this.#endGrace = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async #fetchCheckpoint(): Promise<StoredCheckpoint> {
    const [topic] = await this.#admin.fetchOffsets({ groupId: this.#identity, topics: [this.#topic] });
    return parseCheckpoint(topic?.partitions.find((p) => p.partition === 0)?.metadata ?? null);
  }

  async #fencedAware<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!isFenced(error)) throw error;
      await this.#graceForAClaimant();
      const { owner } = await this.#fetchCheckpoint();
      if (owner !== this.#owner) throw new PublisherFencedError(error);
      throw new Error('Kafka aborted this forwarder’s transaction (open past its timeout); reconnecting', {
        cause: error,
      });
    }
  }
}

/**
 * Right after a claim, the coordinator may still be finishing the previous holder's transaction
 * and refuses new work with CONCURRENT_TRANSACTIONS for a moment; kafkajs does not retry that for
 * AddOffsetsToTxn, so this does, a few times.
 */
async function retryingConcurrentTransactions(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if ((error as { type?: string }).type !== 'CONCURRENT_TRANSACTIONS' || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}

export function parseCheckpoint(metadata: string | null): StoredCheckpoint {
  if (!metadata) return { position: undefined, owner: undefined };
  if (/^\d+$/.test(metadata)) return { position: BigInt(metadata), owner: undefined };
  const { position, eventId, stream, revision, owner } = JSON.parse(metadata) as {
    position?: string;
    eventId?: string;
    stream?: string;
    revision?: string;
    owner?: string;
  };
  return {
    position: position === undefined ? undefined : BigInt(position),
    ...(eventId !== undefined &&
      stream !== undefined &&
      revision !== undefined && { event: { id: eventId, stream, revision: BigInt(revision) } }),
    owner,
  };
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
