/**
 * What the forwarder needs from a message broker, and nothing more: kafkajs sits behind it (see
 * `kafkajs-publisher.ts`) so that another client, such as `@platformatic/kafka`, can replace it
 * by implementing these four methods.
 */

export type OutgoingMessage = {
  readonly key: string;
  readonly value: string;
  readonly headers: Readonly<Record<string, string>>;
};

/**
 * Where forwarding stands: the position of the last event the broker acknowledged, and that event
 * (its id, and its stream and revision, where it is looked up), by which a store restored from a
 * backup is told from the one the checkpoint was taken on (absent in checkpoints older releases
 * wrote).
 */
export type Checkpoint = { readonly position: bigint; readonly event?: CheckpointEvent | undefined };

/**
 * The event at a checkpoint. It is found by its stream and revision, never by reading the store at
 * the checkpoint's position: on KurrentDB, a position where no event starts (a restored store that
 * wrote past it) is an error the client reports exactly as an outage (UnavailableError).
 */
export type CheckpointEvent = { readonly id: string; readonly stream: string; readonly revision: bigint };

export interface EventPublisher {
  /**
   * Claims the right to publish: from here on, any publisher that claimed it earlier fails with
   * `PublisherFencedError`, and its unfinished batch is discarded, never delivered. A publisher
   * whose batch the broker merely timed out fails with an ordinary error instead, and may retry.
   */
  connect(): Promise<void>;
  /** The last event whose batch the broker committed, or undefined before the first. */
  readCheckpoint(): Promise<Checkpoint | undefined>;
  /**
   * Publishes the messages and stores `checkpoint` atomically: both or neither. Resolves once the
   * broker acknowledged them. An empty batch only refreshes the stored checkpoint.
   */
  publish(messages: readonly OutgoingMessage[], checkpoint: Checkpoint): Promise<void>;
  close(): Promise<void>;
}

/** Another publisher claimed the topic after this one; this one must stop, not retry. */
export class PublisherFencedError extends Error {
  constructor(cause: unknown) {
    super('Another forwarder took over publishing to this topic; this one stops.', { cause });
    this.name = 'PublisherFencedError';
  }
}
