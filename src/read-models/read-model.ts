import type { Logger } from 'pino';
import type { Projection } from '../../projections/projection.ts';
import type { EventStore, RecordedEvent } from '../application/ports/event-store.ts';
import type { SnapshotStore } from './snapshot-file.ts';
import type { SnapshotHeader } from './snapshot-format.ts';

const MIN_PERIODIC_SNAPSHOT_INTERVAL_MS = 60_000;

/** The id of the event at a position of this store (what a snapshot's checkpointEventId is checked against). */
export function eventIdAt(store: EventStore): (position: bigint) => Promise<string | undefined> {
  return async (position) => {
    for await (const event of store.readAll({ from: position, maxCount: 1 })) {
      return event.position === position ? event.metadata.eventId : undefined;
    }
    return undefined;
  };
}

/**
 * Whether a snapshot was made from this store: the event at its checkpoint is the one it recorded.
 * A store restored from a backup, or another store, does not hold it there.
 */
export async function madeFromThisStore(
  snapshot: { readonly checkpoint: string; readonly checkpointEventId: string },
  idAt: (position: bigint) => Promise<string | undefined>,
): Promise<boolean> {
  return (await idAt(BigInt(snapshot.checkpoint))) === snapshot.checkpointEventId;
}

/**
 * Why a start would not restore this snapshot, whose file checks out: made by a projection version
 * that `projection` neither is nor serves (`servesSnapshotsOf`), or from another store. Undefined
 * when a start would restore it. `restore` logs the reason; the offline status shows it.
 */
export async function snapshotRefusal(
  projection: Pick<Projection<unknown>, 'version' | 'servesSnapshotsOf'>,
  snapshot: Pick<SnapshotHeader, 'version' | 'checkpoint' | 'checkpointEventId'>,
  idAt: (position: bigint) => Promise<string | undefined>,
): Promise<string | undefined> {
  const { version, servesSnapshotsOf = [] } = projection;
  if (snapshot.version !== version && !servesSnapshotsOf.includes(snapshot.version)) {
    return `projection version ${snapshot.version} -> ${version}`;
  }
  if (!(await madeFromThisStore(snapshot, idAt))) return 'the snapshot was not made from this event store';
  return undefined;
}

/** How a read model started: from nothing, from its snapshot, or from an earlier version's (see `servesSnapshotsOf`). */
export type Restored = 'from-events' | 'from-snapshot' | { readonly interimFromVersion: number };

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
  /** Moves whenever the state may have changed: see `version`. */
  #version = 0;
  #checkpoint: bigint | undefined;
  #eventsSinceSnapshot = 0;
  /** The last event applied, and the id of the event at the checkpoint, for the next snapshot. */
  #lastEvent: RecordedEvent | undefined;
  #checkpointEventId: string | undefined;
  /** performance.now() of the last periodic snapshot: a monotonic clock, which NTP never sets back. */
  #lastPeriodicSnapshotAt = Number.NEGATIVE_INFINITY;
  #snapshotting: Promise<void> | undefined;
  /** The version of the snapshot served until a rebuild replaces it; undefined once current. */
  #interimFromVersion: number | undefined;
  /** Each type of event this release does not know that was passed over, with its first position. */
  readonly #passedOver = new Map<string, bigint>();

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
  /**
   * A number that changes whenever the state may have changed (an event folded in, a snapshot
   * loaded, a rebuilt state taken), and only then: what a reader may keep an answer computed from
   * the state for. It moves before and after each batch, so an answer computed while a batch is
   * folded in (by a listener) is never taken for one computed after it.
   */
  get version(): number {
    return this.#version;
  }

  get checkpoint(): bigint | undefined {
    return this.#checkpoint;
  }

  /** The earlier projection version whose read model is served until the rebuild swaps in this one. */
  get interimFromVersion(): number | undefined {
    return this.#interimFromVersion;
  }

  /**
   * The types of event this release does not know (its projection's `knownEventTypes`) that the read model passed
   * over, each with the position of its first: a newer release wrote them, and the state is not
   * what that release's would be. Such a read model saves no snapshot, so that every start meets
   * them again (a snapshot past them would hide them), and readiness fails while it serves.
   */
  get passedOver(): ReadonlyMap<string, bigint> {
    return this.#passedOver;
  }

  /** Why this read model cannot be trusted, in words (see passedOver); undefined while it can. */
  get untrusted(): string | undefined {
    const unknown = describePassedOver(this.#passedOver);
    return unknown === undefined ? undefined : `read model ${this.projection.name} passed over ${unknown}`;
  }

  /** Calls `listener` with each event after the state includes it; returns the unsubscription. */
  onApplied(listener: (event: RecordedEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Starts from the snapshot once it is proven: its file checks out (snapshot-format.ts), it was
   * made by this projection version (or one it serves, `servesSnapshotsOf`), from this very store
   * (the event at its checkpoint has the id it recorded), and its parts fold back into a state.
   * Otherwise the reason is logged and the read model is rebuilt from position 0.
   */
  async restore(eventIdAt: (position: bigint) => Promise<string | undefined>): Promise<Restored> {
    const { name, version } = this.projection;
    if (this.#snapshots === undefined) return 'from-events';
    const loaded = await this.#snapshots.load(name);
    const rebuild = (why: string): Restored => {
      this.#logger.warn(
        { event: 'read_model.rebuild', projection: name, why },
        'snapshot ignored: rebuilding the read model from position 0',
      );
      return 'from-events';
    };
    if (!loaded.ok) return 'missing' in loaded ? 'from-events' : rebuild(loaded.reason);
    const { snapshot } = loaded;
    const refused = await snapshotRefusal(this.projection, snapshot, eventIdAt);
    if (refused !== undefined) return rebuild(refused);
    const interim = snapshot.version !== version;
    const checkpoint = BigInt(snapshot.checkpoint);
    try {
      this.#version += 1;
      this.#state = this.projection.fromSnapshot(snapshot.parts);
    } catch (error) {
      this.#version += 1;
      this.#state = this.projection.initialState();
      return rebuild(`the snapshot's state is unreadable: ${String(error)}`);
    }
    this.#checkpoint = checkpoint;
    this.#lastEvent = undefined;
    this.#checkpointEventId = snapshot.checkpointEventId;
    if (!interim) return 'from-snapshot';
    this.#interimFromVersion = snapshot.version;
    return { interimFromVersion: snapshot.version };
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
    this.#version += 1;
    const known = this.projection.knownEventTypes;
    for (let i = from; i < batch.length; i++) {
      const event = batch[i]!;
      if (known !== undefined && !known.has(event.type)) this.#passOver(event);
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
    this.#version += 1;
    this.#checkpoint = last.position;
    this.#lastEvent = last;
    this.#eventsSinceSnapshot += batch.length - from;
    this.saveSnapshotIfDue(snapshotEveryEvents);
  }

  /**
   * Saves a snapshot in the background once `snapshotEveryEvents` events were folded since the last
   * one (undefined: never), at most once a minute.
   */
  saveSnapshotIfDue(snapshotEveryEvents: number | undefined): void {
    if (snapshotEveryEvents === undefined || this.#eventsSinceSnapshot < snapshotEveryEvents) return;
    // A snapshot is written a chunk at a time, but its parts still cost the event loop some time in
    // all: under a heavy write load, at most one periodic snapshot a minute.
    const now = performance.now();
    if (now - this.#lastPeriodicSnapshotAt < MIN_PERIODIC_SNAPSHOT_INTERVAL_MS) return;
    this.#lastPeriodicSnapshotAt = now;
    this.#snapshotting ??= this.saveSnapshot().finally(() => (this.#snapshotting = undefined));
  }

  /**
   * Takes the state of a read model rebuilt beside this one, in one synchronous step: readers see
   * the old state or the new, never a mix. Both must include exactly the same events, so that no
   * listener misses or repeats one. The new state is then saved as a snapshot.
   */
  replaceWith(rebuilt: ReadModel<State>): void {
    if (rebuilt.checkpoint !== this.#checkpoint) {
      throw new Error(
        `A rebuilt read model at ${rebuilt.checkpoint} cannot replace one at ${this.#checkpoint}.`,
      );
    }
    this.#version += 1;
    this.#state = rebuilt.state;
    this.#interimFromVersion = undefined;
    // A rebuild from position 0 meets what a snapshot this read model started from may have hidden.
    for (const [type, position] of rebuilt.passedOver)
      if (!this.#passedOver.has(type)) this.#passedOver.set(type, position);
    this.#eventsSinceSnapshot += 1;
    this.#snapshotting ??= this.saveSnapshot().finally(() => (this.#snapshotting = undefined));
  }

  #passOver(event: RecordedEvent): void {
    if (this.#passedOver.has(event.type)) return;
    this.#passedOver.set(event.type, event.position);
    this.#logger.error(
      {
        event: 'read_model.unknown_event',
        projection: this.projection.name,
        type: event.type,
        position: String(event.position),
      },
      'an event of a type this release does not know (a newer release wrote it?): passed over, snapshots withheld, not ready',
    );
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

  /**
   * Saves the state as it is now (its parts are taken synchronously, then written a chunk at a
   * time). Never while an earlier version's read model is served: that snapshot stays as it was.
   * A snapshot that cannot be written is logged: the read model serves on without it.
   */
  async saveSnapshot(): Promise<void> {
    if (this.#passedOver.size > 0) return; // logged when the event was passed over
    try {
      await this.writeSnapshot();
    } catch (error) {
      this.#logger.error({ err: error, projection: this.projection.name }, 'could not save the snapshot');
    }
  }

  /** As saveSnapshot, but rejects when the snapshot cannot be written: for a caller that wants it. */
  async writeSnapshot(): Promise<void> {
    await this.#snapshotting;
    const untrusted = this.untrusted;
    if (untrusted !== undefined) throw new PassedOverEventsError(untrusted);
    if (this.#snapshots === undefined || this.#checkpoint === undefined || this.#eventsSinceSnapshot === 0)
      return;
    if (this.#interimFromVersion !== undefined) return;
    const { name, version } = this.projection;
    // The metadata of one event, parsed here rather than for every event applied.
    this.#checkpointEventId = this.#lastEvent?.metadata.eventId ?? this.#checkpointEventId;
    if (this.#checkpointEventId === undefined) return;
    this.#eventsSinceSnapshot = 0;
    const meta = {
      projection: name,
      version,
      checkpoint: this.#checkpoint.toString(),
      checkpointEventId: this.#checkpointEventId,
    };
    await this.#snapshots.save(meta, this.projection.toSnapshot(this.#state));
  }
}

/** A snapshot refused because its read model passed over events a newer release wrote. */
export class PassedOverEventsError extends Error {
  constructor(untrusted: string) {
    super(`${untrusted}: its snapshot is not saved`);
    this.name = 'PassedOverEventsError';
  }
}

/**
 * `events of a type this release does not know (PetVaccinated, first at position 42)`, naming up
 * to three types; undefined when there are none.
 */
function describePassedOver(passedOver: ReadonlyMap<string, bigint>): string | undefined {
  if (passedOver.size === 0) return undefined;
  const named = [...passedOver]
    .slice(0, 3)
    .map(([type, position]) => `${type}, first at position ${position}`)
    .join('; ');
  const more = passedOver.size > 3 ? `; and ${passedOver.size - 3} more types` : '';
  return `events of a type this release does not know (${named}${more}): a newer release wrote them`;
}
