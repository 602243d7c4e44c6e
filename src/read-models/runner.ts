import type { Logger } from 'pino';
import type { Projection } from '../../projections/projection.ts';
import type { EventStore, RecordedEvent, Subscription } from '../application/ports/event-store.ts';
import { ReadModel } from './read-model.ts';
import type { SnapshotStore } from './snapshot-file.ts';

export type ProjectionGroupOptions = {
  readonly store: EventStore;
  readonly snapshots?: SnapshotStore;
  /** Save a read model's snapshot after this many events since its last one. */
  readonly snapshotEveryEvents?: number;
  readonly logger: Logger;
  /** Wait before resubscribing after a subscription failed. */
  readonly retryDelayMs?: number;
};

type Waiter = {
  readonly position: bigint;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
};

/**
 * Feeds projections from one subscription to the store and owns everything impure around them:
 * checkpoints, snapshots, rebuilding one from position 0 when its version changed, and
 * read-your-writes (`waitFor` resolves once every read model includes a position). One
 * subscription for all: a cold start replays the store once, however many read models there are.
 */
export class ProjectionGroup {
  readonly #options: ProjectionGroupOptions;
  readonly #readModels: ReadModel<unknown>[] = [];
  #position: bigint | undefined;
  #waiters: Waiter[] = [];
  #subscription: Subscription | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;
  /** Until the first catch-up, a failing subscription fails `start()`: retrying would never end for a damaged store. */
  #caughtUp = false;

  constructor(options: ProjectionGroupOptions) {
    this.#options = options;
  }

  /** Adds a projection; only before `start()`. */
  add<State>(projection: Projection<State>): ReadModel<State> {
    if (this.#loop !== undefined) throw new Error('Add every projection before the group starts.');
    const readModel = new ReadModel(projection, this.#options.snapshots, this.#options.logger);
    this.#readModels.push(readModel as ReadModel<unknown>);
    return readModel;
  }

  /** Loads the snapshots still valid, catches every read model up with the store, then follows it. */
  async start(): Promise<void> {
    const head = await this.#options.store.headPosition();
    const eventIdAt = (position: bigint) => this.#eventIdAt(position);
    await Promise.all(this.#readModels.map((readModel) => readModel.restore(eventIdAt)));
    // From the oldest checkpoint: each read model skips what it already includes.
    const checkpoints = this.#readModels.map((readModel) => readModel.checkpoint);
    this.#position =
      checkpoints.length === 0 || checkpoints.includes(undefined)
        ? undefined
        : checkpoints.reduce((min, c) => (c! < min! ? c : min));
    this.#loop = this.#follow();
    if (head !== undefined) await this.waitFor(head);
    this.#caughtUp = true;
  }

  /** Resolves once every read model includes every event up to `position`; rejects if the group stops first. */
  waitFor(position: bigint): Promise<void> {
    if (this.#position !== undefined && this.#position >= position) return Promise.resolve();
    if (this.#stopped) return Promise.reject(new Error('The read models have stopped.'));
    return new Promise((resolve, reject) => this.#waiters.push({ position, resolve, reject }));
  }

  async #eventIdAt(position: bigint): Promise<string | undefined> {
    for await (const event of this.#options.store.readAll({ after: position - 1n, maxCount: 1 })) {
      return event.position === position ? event.metadata.eventId : undefined;
    }
    return undefined;
  }

  /** Every read model of the group, for health checks, metrics and tracing: name, checkpoint, listeners. */
  get readModels(): readonly ReadModel<unknown>[] {
    return this.#readModels;
  }

  /** Position up to which every read model is current. */
  get checkpoint(): bigint | undefined {
    return this.#position;
  }

  /** Stops following the store and saves every snapshot; the store stays open. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#subscription?.close();
    await this.#loop;
    for (const waiter of this.#waiters) waiter.reject(new Error('The read models have stopped.'));
    this.#waiters = [];
    await Promise.all(this.#readModels.map((readModel) => readModel.saveSnapshot()));
  }

  async #follow(): Promise<void> {
    const { store, logger, snapshotEveryEvents, retryDelayMs } = this.#options;
    while (!this.#stopped) {
      try {
        this.#subscription = store.subscribeToAll(
          this.#position === undefined ? {} : { after: this.#position },
        );
        for await (const batch of this.#subscription.batches()) {
          for (const readModel of this.#readModels) readModel.apply(batch, snapshotEveryEvents);
          this.#advance(batch[batch.length - 1]!.position);
        }
      } catch (error) {
        if (this.#stopped) return;
        if (!this.#caughtUp) return this.#failStart(error);
        logger.error({ err: error }, 'subscription failed: resubscribing from the checkpoint');
        await this.#subscription?.close().catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs ?? 1000));
      }
    }
  }

  #failStart(error: unknown): void {
    this.#stopped = true;
    void this.#subscription?.close().catch(() => {});
    for (const waiter of this.#waiters)
      waiter.reject(error instanceof Error ? error : new Error(String(error)));
    this.#waiters = [];
  }

  #advance(position: bigint): void {
    this.#position = position;
    if (this.#waiters.length === 0) return;
    const ready = this.#waiters.filter((w) => w.position <= position);
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => w.position > position);
    for (const waiter of ready) waiter.resolve();
  }
}

export type ProjectionRunnerOptions<State> = ProjectionGroupOptions & {
  readonly projection: Projection<State>;
};

/** A group of one: a single projection with its own subscription. */
export class ProjectionRunner<State> {
  readonly #group: ProjectionGroup;
  readonly #readModel: ReadModel<State>;

  constructor(options: ProjectionRunnerOptions<State>) {
    this.#group = new ProjectionGroup(options);
    this.#readModel = this.#group.add(options.projection);
  }

  get state(): State {
    return this.#readModel.state;
  }

  get checkpoint(): bigint | undefined {
    return this.#readModel.checkpoint;
  }

  start(): Promise<void> {
    return this.#group.start();
  }

  onApplied(listener: (event: RecordedEvent) => void): () => void {
    return this.#readModel.onApplied(listener);
  }

  waitFor(position: bigint): Promise<void> {
    return this.#group.waitFor(position);
  }

  stop(): Promise<void> {
    return this.#group.stop();
  }
}
