/**
 * A projection is pure code: a state, an `evolve` that folds one event into it, and a version.
 * Bumping `version` makes the runner rebuild the read model from position 0 (see
 * `servesSnapshotsOf`). `evolve` may update the state in place and return it (read models hold
 * millions of entries; copying is not an option), but it does no I/O and reads no clock.
 */
export type ProjectedEvent = {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** The event's revision in its stream (0 for the first). */
  readonly revision: bigint;
};

export interface Projection<State> {
  readonly name: string;
  readonly version: number;
  initialState(): State;
  evolve(state: State, event: ProjectedEvent): State;
  /**
   * The state as snapshot parts, each JSON-serialisable, in an order that depends only on the events
   * folded (verification compares parts). Called synchronously at a checkpoint, but the parts may be
   * iterated later, over many turns of the event loop while further events are applied: so it copies
   * at once whatever those events could change (the list of current records, say) and defers only
   * work on what they cannot (records that are replaced, never changed in place). An array of
   * immutable records is the simplest answer.
   */
  toSnapshot(state: State): Iterable<unknown>;
  /**
   * The state again, from the parts `toSnapshot` gave, in their order. A snapshot file's parts are
   * parsed as the iteration reaches them: fold each as it comes, rather than gathering them first.
   */
  fromSnapshot(parts: Iterable<unknown>): State;
  /**
   * Earlier versions whose snapshots this code reads and whose read models may be served while the
   * new version is rebuilt beside them (see README, "Audit and operations"). Only list a version when
   * its state has this version's shape and its answers were right for that version: a snapshot of
   * any other version is not served, and start-up rebuilds before it answers.
   */
  readonly servesSnapshotsOf?: readonly number[];
  /**
   * Every type of event the release this projection belongs to writes: an event of another type
   * (a newer release's) is passed over, logged, and makes the read model untrusted (see
   * ReadModel.passedOver). Absent: every type is taken as known.
   */
  readonly knownEventTypes?: ReadonlySet<string>;
}
