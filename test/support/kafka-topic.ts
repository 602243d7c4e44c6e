import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';

export type ConsumedMessage = {
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly value: string;
  readonly headers: Record<string, string>;
};

/**
 * Reads a topic from the beginning into memory, as a downstream consumer would (read_committed,
 * its own consumer group), until stopped. Creates the topic, with 3 partitions, if it is missing.
 */
export class TopicReader {
  readonly messages: ConsumedMessage[] = [];
  readonly #consumer: Consumer;

  private constructor(consumer: Consumer) {
    this.#consumer = consumer;
  }

  static async start(brokers: string[], topic: string): Promise<TopicReader> {
    const kafka = new Kafka({ clientId: 'test-reader', brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    await admin.disconnect();
    const consumer = kafka.consumer({ groupId: `test-${randomUUID()}`, readUncommitted: false });
    const reader = new TopicReader(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        reader.messages.push({
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? '',
          value: message.value?.toString() ?? '',
          headers: Object.fromEntries(
            Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
          ),
        });
      },
    });
    return reader;
  }

  /** The messages with duplicates (same event-id header) dropped, as the README tells consumers. */
  deduplicated(): ConsumedMessage[] {
    const seen = new Set<string>();
    return this.messages.filter((m) => {
      const id = m.headers['event-id']!;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }

  async waitFor(done: (reader: TopicReader) => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this)) {
      if (Date.now() > deadline) {
        throw new Error(
          `Timed out after ${timeoutMs} ms waiting for ${what}; have ${this.messages.length} messages`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    await this.#consumer.disconnect();
  }
}
