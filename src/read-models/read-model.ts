import type { Logger } from 'pino';
import type { Projection } from '../../projections/projection.ts';
import type { RecordedEvent } from '../application/ports/event-store.ts';
import { isSnapshot, type SnapshotStore } from './snapshot-file.ts';

const MIN_PERIODIC_SNAPSHOT_INTERVAL_MS = 60_000;

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
  /** The last event applied, and the id of the event at the checkpoint, for the next snapshot. */
  #lastEvent: RecordedEvent | undefined;
  #checkpointEventId: string | undefined;
  #lastPeriodicSnapshotAt = 0;
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
   * Starts from the snapshot when it is still valid: same projection version, and made from this
   * very store (the event at its checkpoint has the id it recorded). Otherwise, or when the file is
   * damaged, the read model is rebuilt from position 0.
   */
  async restore(eventIdAt: (position: bigint) => Promise<string | undefined>): Promise<void> {
    const { name, version } = this.projection;
    const snapshot = await this.#snapshots?.load(name);
    if (snapshot === undefined) return;
    const rebuild = (why: string) =>
      this.#logger.warn(
        { event: 'read_model.rebuild', projection: name, why },
        'rebuilding the read model from position 0',
      );
    if (!isSnapshot(snapshot)) return rebuild('the snapshot file is damaged');
    if (snapshot.version !== version) return rebuild(`projection version ${snapshot.version} -> ${version}`);
    const checkpoint = BigInt(snapshot.checkpoint);
    if ((await eventIdAt(checkpoint)) !== snapshot.checkpointEventId) {
      return rebuild('the snapshot was not made from this event store');
    }
    try {
      this.#state = this.projection.fromSnapshot(snapshot.state);
      this.#checkpoint = checkpoint;
      this.#lastEvent = undefined;
      this.#checkpointEventId = snapshot.checkpointEventId;
    } catch (error) {
      this.#state = this.projection.initialState();
      rebuild(`the snapshot state is unreadable: ${String(error)}`);
    }
  }

  /**
   * Folds in the events of a batch it does not include yet. An event `evolve` throws on is logged
   * and passed over, and so is a listener's error: one bad event must not stop every read model
   * (and every write waiting for them) of the process.
   */
  apply(batch: readonly RecordedEvent[], snapshotEveryEvents: number | undefined): void {
    const last = batch[batch.length - 1]!;
    if (this.#checkpoint !== undefined && last.position <= this.#checkpoint) return;
    let from = 0;
    if (this.#checkpoint !== undefined) while (batch[from]!.position <= this.#checkpoint) from += 1;
    // Nothing below throws (evolve's and listeners' errors are caught), so the checkpoint moves once
    // per batch: replaying millions of events, per-event bookkeeping shows.
    for (let i = from; i < batch.length; i++) {
      const event = batch[i]!;
      try {
        this.#state = this.projection.evolve(this.#state, event);
      } catch (error) {
        this.#logger.error(
          {
            err: error,
            projection: this.projection.name,
            position: String(event.position),
            type: event.type,
          },
          'projection failed on an event: passed over',
        );
      }
      if (this.#listeners.size > 0) this.#notify(event);
    }
    this.#checkpoint = last.position;
    this.#lastEvent = last;
    this.#eventsSinceSnapshot += batch.length - from;
    if (snapshotEveryEvents === undefined || this.#eventsSinceSnapshot < snapshotEveryEvents) return;
    // Building a snapshot holds the event loop (about 0.25 s for a million pets): under a heavy
    // write load, at most one periodic snapshot a minute.
    const now = Date.now();
    if (now - this.#lastPeriodicSnapshotAt < MIN_PERIODIC_SNAPSHOT_INTERVAL_MS) return;
    this.#lastPeriodicSnapshotAt = now;
    this.#snapshotting ??= this.saveSnapshot().finally(() => (this.#snapshotting = undefined));
  }

  #notify(event: RecordedEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.error({ err: error, projection: this.projection.name }, 'a read-model listener failed');
      }
    }
  }

  async saveSnapshot(): Promise<void> {
    await this.#snapshotting;
    if (this.#snapshots === undefined || this.#checkpoint === undefined || this.#eventsSinceSnapshot === 0)
      return;
    this.#eventsSinceSnapshot = 0;
    const { name, version } = this.projection;
    try {
      // The metadata of one event, parsed here rather than for every event applied.
      this.#checkpointEventId = this.#lastEvent?.metadata.eventId ?? this.#checkpointEventId;
      if (this.#checkpointEventId === undefined) return;
      await this.#snapshots.save({
        projection: name,
        version,
        checkpoint: this.#checkpoint.toString(),
        checkpointEventId: this.#checkpointEventId,
        state: this.projection.toSnapshot(this.#state),
      });
    } catch (error) {
      this.#logger.error({ err: error, projection: name }, 'could not save the snapshot');
    }
  }
}
