import type { Logger } from 'pino';
import type { Projection } from '../../projections/projection.ts';
import type { RecordedEvent } from '../eventstore/port.ts';
import type { SnapshotStore } from './snapshot-file.ts';

/**
 * One projection's read model inside a ProjectionGroup: its state, the position it includes,
 * its snapshots, and who listens to it. The group feeds it; readers only read.
 */
export class ReadModel<State> {
  readonly projection: Projection<State>;
  readonly #snapshots: SnapshotStore | undefined;
  readonly #logger: Logger;
  readonly #listeners = new Set<(event: RecordedEvent) => void>();
  #state: State;
  #checkpoint: bigint | undefined;
  #eventsSinceSnapshot = 0;
  #snapshotting: Promise<void> | undefined;

  constructor(projection: Projection<State>, snapshots: SnapshotStore | undefined, logger: Logger) {
    this.projection = projection;
    this.#snapshots = snapshots;
    this.#logger = logger;
    this.#state = projection.initialState();
  }

  get state(): State {
    return this.#state;
  }

  /** Position of the last event this read model includes; undefined before the first. */
  get checkpoint(): bigint | undefined {
    return this.#checkpoint;
  }

  /** Calls `listener` with each event after the state includes it; returns the unsubscription. */
  onApplied(listener: (event: RecordedEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Starts from the snapshot when it is still valid: same projection version, and not ahead of
   * the store (a store replaced under it). Otherwise the read model is rebuilt from position 0.
   */
  async restore(head: bigint | undefined): Promise<void> {
    const snapshot = await this.#snapshots?.load(this.projection.name);
    if (snapshot === undefined) return;
    const { name, version } = this.projection;
    const checkpoint = BigInt(snapshot.checkpoint);
    if (snapshot.version !== version) {
      this.#logger.info(
        { projection: name, from: snapshot.version, to: version },
        'projection version changed: rebuilding from position 0',
      );
      return;
    }
    if (head === undefined || checkpoint > head) {
      this.#logger.warn(
        { projection: name },
        'snapshot is ahead of the event store: rebuilding from position 0',
      );
      return;
    }
    this.#state = this.projection.fromSnapshot(snapshot.state);
    this.#checkpoint = checkpoint;
  }

  /** Folds in the events of a batch it does not include yet. */
  apply(batch: readonly RecordedEvent[], snapshotEveryEvents: number | undefined): void {
    const last = batch[batch.length - 1]!.position;
    if (this.#checkpoint !== undefined && last <= this.#checkpoint) return;
    let applied = 0;
    for (const event of batch) {
      if (this.#checkpoint !== undefined && event.position <= this.#checkpoint) continue;
      this.#state = this.projection.evolve(this.#state, event);
      applied += 1;
      if (this.#listeners.size > 0) for (const listener of this.#listeners) listener(event);
    }
    this.#checkpoint = last;
    this.#eventsSinceSnapshot += applied;
    if (snapshotEveryEvents !== undefined && this.#eventsSinceSnapshot >= snapshotEveryEvents) {
      this.#snapshotting ??= this.saveSnapshot().finally(() => (this.#snapshotting = undefined));
    }
  }

  async saveSnapshot(): Promise<void> {
    await this.#snapshotting;
    if (this.#snapshots === undefined || this.#checkpoint === undefined || this.#eventsSinceSnapshot === 0)
      return;
    this.#eventsSinceSnapshot = 0;
    const { name, version } = this.projection;
    try {
      await this.#snapshots.save({
        projection: name,
        version,
        checkpoint: this.#checkpoint.toString(),
        state: this.projection.toSnapshot(this.#state),
      });
    } catch (error) {
      this.#logger.error({ err: error, projection: name }, 'could not save the snapshot');
    }
  }
}
