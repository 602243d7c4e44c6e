import type { EventStore, RecordedEvent } from '../application/ports/event-store.ts';
import { batches } from './batches.ts';
import { toKafkaMessage } from './message.ts';
import {
  type CheckpointEvent,
  type EventPublisher,
  type OutgoingMessage,
  PublisherFencedError,
} from './publisher.ts';

/**
 * Forwards every event of the store to the publisher, in store order, at least once.
 *
 * One session: claim the topic (fencing any other forwarder), read the checkpoint the broker
 * holds, subscribe to the store after it, and publish batch after batch, each together with its
 * last position as the new checkpoint. Any failure (broker or store down, a crash mid-batch)
 * ends the session; the next one starts over from the checkpoint, so nothing is lost and an
 * event is published again only if its batch's commit was not acknowledged. Being fenced ends
 * the forwarder: another one has taken over (a batch the broker only timed out is an ordinary
 * failure, see `EventPublisher.connect`).
 */

export type ForwarderLog = {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
};

export type ForwarderOptions = {
  readonly store: EventStore;
  /** A fresh publisher for each session. */
  readonly createPublisher: () => EventPublisher;
  readonly log: ForwarderLog;
  readonly maxBatchSize?: number;
  /** Bytes of keys, values and headers one batch may hold (at least one message): see MAX_BATCH_BYTES. */
  readonly maxBatchBytes?: number;
  readonly lingerMs?: number;
  /** While no event arrives for this long, the checkpoint is rewritten, so the broker keeps it. */
  readonly checkpointRefreshMs?: number;
  /** Delay before the first retry after a failed session; doubles up to `maxRetryDelayMs`. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  /** Called after each acknowledged batch with its checkpoint. */
  readonly onCheckpoint?: (position: bigint) => void;
  /**
   * Called when a session resumes, with the checkpoint it resumes after: none (undefined) when the
   * broker holds none (a new or deleted topic) or one past the store's last event.
   */
  readonly onResume?: (checkpoint: bigint | undefined) => void;
  /** Called with every failure that ends a session (the forwarder then resumes from its checkpoint). */
  readonly onError?: (error: unknown) => void;
  /** Sees each batch's publish (tracing puts a span around it), and calls `publish` exactly once. */
  readonly observePublish?: (batch: readonly RecordedEvent[], publish: () => Promise<void>) => Promise<void>;
};

/** What observability may attach to a forwarder. */
export type ForwarderObserver = Pick<
  ForwarderOptions,
  'onCheckpoint' | 'onResume' | 'onError' | 'observePublish'
>;

export type Forwarder = {
  /** Settles when the forwarder stops: resolves after `stop()`, rejects when fenced. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
};

/**
 * Kafka refuses a batch over the topic's `max.message.bytes` (1 MiB by default) whatever how often
 * it is sent: 500 events of orders with long notes are more. Half of it leaves room for Kafka's
 * own framing of each record.
 */
const MAX_BATCH_BYTES = 512 * 1024;

export function startForwarder(options: ForwarderOptions): Forwarder {
  let stopping = false;
  let closeSession: (() => Promise<void>) | undefined;
  let wakeFromRetry: (() => void) | undefined;

  async function runSession(): Promise<void> {
    const publisher = options.createPublisher();
    let subscription: { close(): Promise<void> } | undefined;
    closeSession = async () => {
      await subscription?.close();
      await publisher.close();
    };
    try {
      await publisher.connect();
      let checkpoint = await publisher.readCheckpoint();
      const head = checkpoint === undefined ? undefined : await options.store.headPosition();
      if (checkpoint !== undefined && checkpoint.position > (head ?? 0n)) {
        // Restored from a backup, or another store's topic: resuming after the checkpoint would pass
        // over the events this store appends at positions up to it. Positions compare in store order
        // on every adapter (KurrentDB's too), where reading at an arbitrary position would not do.
        options.log.warn(
          {
            event: 'forwarder.checkpoint_past_store',
            checkpoint: checkpoint.position.toString(),
            head: head?.toString() ?? null,
          },
          "the checkpoint in Kafka is past this store's last event (restored from a backup, or another store): forwarding every event again from position 0; consumers drop those they have by event-id",
        );
        checkpoint = undefined;
      } else if (checkpoint?.event !== undefined && !(await holdsEvent(options.store, checkpoint.event))) {
        // The same, once such a store has appended past the checkpoint: the event there is another.
        options.log.warn(
          {
            event: 'forwarder.checkpoint_not_in_store',
            checkpoint: checkpoint.position.toString(),
            eventId: checkpoint.event.id,
          },
          "the event at the checkpoint in Kafka is not this store's (restored from a backup, or another store): forwarding every event again from position 0; consumers drop those they have by event-id",
        );
        checkpoint = undefined;
      }
      options.log.info(
        { checkpoint: checkpoint?.position.toString() ?? null },
        'forwarder resumes after its checkpoint',
      );
      options.onResume?.(checkpoint?.position);
      if (stopping) return;
      const feed = options.store.subscribeToAll(
        checkpoint === undefined ? {} : { after: checkpoint.position },
      );
      subscription = feed;
      const batchOptions = {
        maxSize: options.maxBatchSize ?? 500,
        lingerMs: options.lingerMs ?? 5,
        idleMs: options.checkpointRefreshMs ?? 3_600_000,
      };
      for await (const feedBatch of batches(feed, batchOptions)) {
        for (const { events, messages } of withinBytes(feedBatch, options.maxBatchBytes ?? MAX_BATCH_BYTES)) {
          if (stopping) return;
          const lastEvent = events.at(-1);
          const last =
            lastEvent === undefined
              ? checkpoint
              : {
                  position: lastEvent.position,
                  event: {
                    id: lastEvent.metadata.eventId,
                    stream: lastEvent.streamName,
                    revision: lastEvent.revision,
                  },
                };
          if (last === undefined) continue;
          const publish = () => publisher.publish(messages, last);
          await (options.observePublish === undefined ? publish() : options.observePublish(events, publish));
          checkpoint = last;
          options.onCheckpoint?.(last.position);
        }
      }
    } finally {
      closeSession = undefined;
      await subscription?.close();
      await publisher.close();
    }
  }

  async function run(): Promise<void> {
    let delayMs = options.retryDelayMs ?? 500;
    while (!stopping) {
      try {
        await runSession();
        delayMs = options.retryDelayMs ?? 500;
      } catch (error) {
        if (error instanceof PublisherFencedError) throw error;
        if (stopping) return;
        options.onError?.(error);
        options.log.warn(
          { event: 'forwarder.fault', err: error, retryInMs: delayMs },
          'forwarding failed; resuming from the checkpoint',
        );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          wakeFromRetry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        delayMs = Math.min(delayMs * 2, options.maxRetryDelayMs ?? 5_000);
      }
    }
  }

  const done = run();
  return {
    done,
    async stop() {
      stopping = true;
      wakeFromRetry?.();
      await closeSession?.();
      await done.catch(() => {});
    },
  };
}

/**
 * A batch of the feed as the batches the broker is sent, in order, each of at most `maxBytes` (or
 * one message). An empty batch (a checkpoint refresh) stays one.
 */
function* withinBytes(
  batch: readonly RecordedEvent[],
  maxBytes: number,
): Generator<{ events: RecordedEvent[]; messages: OutgoingMessage[] }> {
  let part = { events: [] as RecordedEvent[], messages: [] as OutgoingMessage[] };
  let bytes = 0;
  for (const event of batch) {
    const message = toKafkaMessage(event);
    const size = messageBytes(message);
    if (part.events.length > 0 && bytes + size > maxBytes) {
      yield part;
      part = { events: [], messages: [] };
      bytes = 0;
    }
    part.events.push(event);
    part.messages.push(message);
    bytes += size;
  }
  yield part;
}

function messageBytes({ key, value, headers }: OutgoingMessage): number {
  let bytes = Buffer.byteLength(key) + Buffer.byteLength(value);
  for (const name in headers) bytes += Buffer.byteLength(name) + Buffer.byteLength(headers[name]!);
  return bytes;
}

/** Whether the store holds the checkpoint's event, where it was: at that revision of its stream. */
async function holdsEvent(store: EventStore, event: CheckpointEvent): Promise<boolean> {
  const [there] = await store.readStream(event.stream, { fromRevision: event.revision, maxCount: 1 });
  return there?.metadata.eventId === event.id;
}
