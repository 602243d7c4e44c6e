/**
 * A projection is pure code: a state, an `evolve` that folds one event into it, and a version.
 * Bumping `version` makes the runner rebuild the read model from position 0. `evolve` may update
 * the state in place and return it (read models hold millions of entries; copying is not an option),
 * but it does no I/O and reads no clock.
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
  /** A JSON-serialisable image of the state, for fast start-up. */
  toSnapshot(state: State): unknown;
  fromSnapshot(snapshot: unknown): State;
}
