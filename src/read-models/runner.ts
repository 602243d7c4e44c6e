import type { Logger } from 'pino';
import type { Projection } from '../../projections/projection.ts';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/port.ts';
import type { SnapshotStore } from './snapshot-file.ts';

export type ProjectionRunnerOptions<State> = {
  readonly store: EventStore;
  readonly projection: Projection<State>;
  readonly snapshots?: SnapshotStore;
  /** Save a snapshot after this many events since the last one. */
  readonly snapshotEveryEvents?: number;
  readonly logger: Logger;
  /** Wait before resubscribing after a subscription failed. */
  readonly retryDelayMs?: number;
};

type Waiter = { readonly position: bigint; readonly resolve: () => void };

/**
 * Feeds a projection from the store's subscription and owns everything impure around it: the
 * checkpoint, snapshots, rebuilding from position 0 when the projection's version changed, and
 * read-your-writes (`waitFor` resolves once the state includes a position).
 */
export class ProjectionRunner<State> {
  readonly #options: ProjectionRunnerOptions<State>;
  #state: State;
  #checkpoint: bigint | undefined;
  #eventsSinceSnapshot = 0;
  #waiters: Waiter[] = [];
  #subscription: Subscription | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;
  #snapshotting: Promise<void> | undefined;
  readonly #listeners = new Set<(event: RecordedEvent) => void>();

  constructor(options: ProjectionRunnerOptions<State>) {
    this.#options = options;
    this.#state = options.projection.initialState();
  }

  get state(): State {
    return this.#state;
  }

  get checkpoint(): bigint | undefined {
    return this.#checkpoint;
  }

  /** Loads the snapshot (if still valid), catches up with the store, then follows it live. */
  async start(): Promise<void> {
    const head = await this.#options.store.headPosition();
    await this.#restoreSnapshot(head);
    this.#loop = this.#follow();
    if (head !== undefined) await this.waitFor(head);
  }

  /** Calls `listener` with each event after the state includes it; returns the unsubscription. */
  onApplied(listener: (event: RecordedEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves once the read model includes every event up to `position`. */
  waitFor(position: bigint): Promise<void> {
    if (this.#checkpoint !== undefined && this.#checkpoint >= position) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ position, resolve }));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#subscription?.close();
    await this.#loop;
    await this.#snapshotting;
    await this.#saveSnapshot();
  }

  async #restoreSnapshot(head: bigint | undefined): Promise<void> {
    const { projection, snapshots, logger } = this.#options;
    const snapshot = await snapshots?.load(projection.name);
    if (snapshot === undefined) return;
    const checkpoint = BigInt(snapshot.checkpoint);
    if (snapshot.version !== projection.version) {
      logger.info(
        { projection: projection.name, from: snapshot.version, to: projection.version },
        'projection version changed: rebuilding from position 0',
      );
      return;
    }
    if (head === undefined || checkpoint > head) {
      logger.warn(
        { projection: projection.name },
        'snapshot is ahead of the event store: rebuilding from position 0',
      );
      return;
    }
    this.#state = projection.fromSnapshot(snapshot.state);
    this.#checkpoint = checkpoint;
  }

  async #follow(): Promise<void> {
    while (!this.#stopped) {
      try {
        this.#subscription = this.#options.store.subscribeToAll(
          this.#checkpoint === undefined ? {} : { after: this.#checkpoint },
        );
        const { projection } = this.#options;
        for await (const batch of this.#subscription.batches()) {
          for (const event of batch) {
            this.#state = projection.evolve(this.#state, event);
            if (this.#listeners.size > 0) for (const listener of this.#listeners) listener(event);
          }
          this.#advance(batch[batch.length - 1]!.position, batch.length);
        }
      } catch (error) {
        if (this.#stopped) return;
        this.#options.logger.error(
          { err: error, projection: this.#options.projection.name },
          'subscription failed: resubscribing from the checkpoint',
        );
        await new Promise((resolve) => setTimeout(resolve, this.#options.retryDelayMs ?? 1000));
      }
    }
  }

  #advance(position: bigint, events: number): void {
    this.#checkpoint = position;
    if (this.#waiters.length > 0) {
      const ready = this.#waiters.filter((w) => w.position <= position);
      if (ready.length > 0) {
        this.#waiters = this.#waiters.filter((w) => w.position > position);
        for (const waiter of ready) waiter.resolve();
      }
    }
    this.#eventsSinceSnapshot += events;
    const every = this.#options.snapshotEveryEvents;
    if (every !== undefined && this.#eventsSinceSnapshot >= every && this.#snapshotting === undefined) {
      this.#snapshotting = this.#saveSnapshot().finally(() => (this.#snapshotting = undefined));
    }
  }

  async #saveSnapshot(): Promise<void> {
    const { projection, snapshots, logger } = this.#options;
    if (snapshots === undefined || this.#checkpoint === undefined || this.#eventsSinceSnapshot === 0) return;
    this.#eventsSinceSnapshot = 0;
    try {
      await snapshots.save({
        projection: projection.name,
        version: projection.version,
        checkpoint: this.#checkpoint.toString(),
        state: projection.toSnapshot(this.#state),
      });
    } catch (error) {
      logger.error({ err: error, projection: projection.name }, 'could not save the snapshot');
    }
  }
}
