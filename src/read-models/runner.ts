import { EVENTS_PER_TURN, turnsEvery } from '../shared/next-turn.ts';
import type { Logger } from 'pino';
import type { Projection } from '../../projections/projection.ts';
import type { EventStore, RecordedEvent, Subscription } from '../application/ports/event-store.ts';
import type { RebuildStatus } from '../application/ports/read-models.ts';
import { eventIdAt, ReadModel } from './read-model.ts';
import { Rebuild } from './rebuild.ts';
import { RetriedFailureLog } from './retried-failure-log.ts';
import { isFirstFormatSnapshot, type SnapshotStore } from './snapshot-file.ts';

export type ProjectionGroupOptions = {
  readonly store: EventStore;
  readonly snapshots?: SnapshotStore;
  /** Save a read model's snapshot after this many events since its last one. */
  readonly snapshotEveryEvents?: number;
  readonly logger: Logger;
  /** Wait before resubscribing after a subscription failed. */
  readonly retryDelayMs?: number;
  /** Events applied between turns of the event loop, following the store or rebuilding: EVENTS_PER_TURN. */
  readonly eventsPerTurn?: number;
};

type Waiter = {
  readonly position: bigint;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
};

/**
 * Feeds projections from one subscription to the store and owns everything impure around them:
 * checkpoints, snapshots, rebuilds (from position 0 when a version changed, or beside the live
 * read model while it serves), and read-your-writes (`waitFor` resolves once every read model
 * includes a position). One subscription for all: a cold start replays the store once, however
 * many read models there are.
 */
export class ProjectionGroup {
  readonly #options: ProjectionGroupOptions;
  readonly #readModels: ReadModel<unknown>[] = [];
  #position: bigint | undefined;
  #waiters: Waiter[] = [];
  #subscription: Subscription | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;
  readonly #rebuilds = new Map<string, Rebuild>();
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

  /**
   * Loads the snapshots still valid, catches every read model up with the store, then follows it.
   * A read model served from an earlier version's snapshot (`servesSnapshotsOf`) is rebuilt beside
   * itself from then on.
   */
  async start(): Promise<void> {
    const { snapshots, logger } = this.#options;
    const removed = (await snapshots?.removeLeftovers()) ?? [];
    const firstFormat = removed.filter(isFirstFormatSnapshot);
    const leftovers = removed.filter((name) => !isFirstFormatSnapshot(name));
    if (firstFormat.length > 0)
      logger.warn(
        { files: firstFormat },
        'removed snapshots of the first format, which this code does not read',
      );
    if (leftovers.length > 0)
      logger.warn({ files: leftovers }, 'removed what interrupted snapshot writes left');
    const head = await this.#options.store.headPosition();
    const idAt = eventIdAt(this.#options.store);
    await Promise.all(this.#readModels.map((readModel) => readModel.restore(idAt)));
    // From the oldest checkpoint: each read model skips what it already includes.
    const checkpoints = this.#readModels.map((readModel) => readModel.checkpoint);
    this.#position =
      checkpoints.length === 0 || checkpoints.includes(undefined)
        ? undefined
        : checkpoints.reduce((min, c) => (c! < min! ? c : min));
    this.#loop = this.#follow();
    if (head !== undefined) await this.waitFor(head);
    this.#caughtUp = true;
    // The catch-up saved none part-way (see #follow): the snapshot is of where it ended.
    for (const readModel of this.#readModels) readModel.saveSnapshotIfDue(this.#options.snapshotEveryEvents);
    for (const readModel of this.#readModels) {
      if (readModel.interimFromVersion !== undefined) this.rebuild(readModel.projection.name);
    }
  }

  /** The read models, in the order they were added. */
  get readModels(): readonly ReadModel<unknown>[] {
    return this.#readModels;
  }

  /**
   * Rebuilds a read model beside itself (see rebuild.ts), unless a rebuild of it is running already;
   * returns that rebuild's status. Undefined for a projection the group does not have.
   */
  rebuild(name: string): RebuildStatus | undefined {
    const live = this.#readModels.find((readModel) => readModel.projection.name === name);
    if (live === undefined) return undefined;
    const running = this.#rebuilds.get(name);
    if (running?.running === true) return running.status;
    if (this.#stopped) throw new Error('The read models have stopped.');
    const rebuild = new Rebuild(live, {
      store: this.#options.store,
      waitFor: (p) => this.waitFor(p),
      logger: this.#options.logger,
      eventsPerTurn: this.#options.eventsPerTurn,
    });
    this.#rebuilds.set(name, rebuild);
    return rebuild.status;
  }

  /** The last rebuild of a read model in this process, if any. */
  rebuildStatus(name: string): RebuildStatus | undefined {
    return this.#rebuilds.get(name)?.status;
  }

  /**
   * Why the read models cannot be trusted, if a newer release wrote events this one does not know
   * (see ReadModel.passedOver): for readiness. Undefined when none was met.
   */
  get passedOver(): string | undefined {
    for (const readModel of this.#readModels) {
      const untrusted = readModel.untrusted;
      if (untrusted !== undefined) return untrusted;
    }
    return undefined;
  }

  /** Resolves once every read model includes every event up to `position`; rejects if the group stops first. */
  waitFor(position: bigint): Promise<void> {
    if (this.#position !== undefined && this.#position >= position) return Promise.resolve();
    if (this.#stopped) return Promise.reject(new Error('The read models have stopped.'));
    return new Promise((resolve, reject) => this.#waiters.push({ position, resolve, reject }));
  }

  /** Position up to which every read model is current. */
  get checkpoint(): bigint | undefined {
    return this.#position;
  }

  /** Stops following the store and saves every snapshot; the store stays open. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#rebuilds.values()].map((rebuild) => rebuild.abort()));
    await this.#subscription?.close();
    await this.#loop;
    for (const waiter of this.#waiters) waiter.reject(new Error('The read models have stopped.'));
    this.#waiters = [];
    await Promise.all(this.#readModels.map((readModel) => readModel.saveSnapshot()));
  }

  async #follow(): Promise<void> {
    const { store, logger, snapshotEveryEvents, retryDelayMs } = this.#options;
    const failures = new RetriedFailureLog(logger, 'subscription failed: resubscribing from the checkpoint');
    const turn = turnsEvery(this.#options.eventsPerTurn ?? EVENTS_PER_TURN);
    while (!this.#stopped) {
      try {
        this.#subscription = store.subscribeToAll({
          ...(this.#position === undefined ? {} : { after: this.#position }),
          // Past events the feed leaves out (KurrentDB's system events): a resubscription, and a
          // write waiting for its position, need not wait for the next event that is delivered.
          onCheckpoint: (position) => this.#advance(position),
          // Read models need the metadata of one event per snapshot (its id).
          lean: true,
        });
        for await (const batch of this.#subscription.batches()) {
          // None while a start catches up: a snapshot part-way through a long catch-up (a restored
          // backup, a changed projection) slowed the start and, once a minute had to pass before the
          // next, left the next start to fold nearly every event again.
          const every = this.#caughtUp ? snapshotEveryEvents : undefined;
          for (const readModel of this.#readModels) readModel.apply(batch, every);
          this.#advance(batch[batch.length - 1]!.position);
          failures.succeeded();
          // The embedded store's batches come on promises alone (its reads are synchronous): a burst
          // another process wrote (thousands of events in one commit) would be applied whole before
          // any request, probe or signal was served. Waiters are told before this turn.
          const turning = turn(batch.length);
          if (turning !== undefined) await turning;
        }
      } catch (error) {
        if (this.#stopped) return;
        if (!this.#caughtUp) return this.#failStart(error);
        failures.failed(error);
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
    if (this.#position !== undefined && position <= this.#position) return;
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
