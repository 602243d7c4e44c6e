import type { ApiKey } from '../../domain/api-keys.ts';
import type { OrderStatus, VersionedOrder } from '../../domain/orders.ts';
import type { PetStatus, VersionedPet } from '../../domain/pets.ts';

/**
 * What the application needs of the read models: the ports that src/read-models implements over
 * the projections of projections/. Every read is synchronous: read models live in memory.
 */

/** A pet created, changed or removed, as the read model has just applied it, at the event's store position. */
export type PetChange = { readonly position: bigint } & (
  | { readonly type: 'created' | 'updated'; readonly pet: VersionedPet }
  | { readonly type: 'removed'; readonly id: number; readonly version: number }
);

export type PetReadModel = {
  /** A live pet; undefined when there is none with this id, or it was removed. */
  getPet(id: number): VersionedPet | undefined;
  /** The last version of a removed pet; undefined when the pet is live or never existed. */
  removedVersion(id: number): number | undefined;
  /** The order that holds the pet, if one does. */
  heldBy(id: number): number | undefined;
  /** How many live pets have each status. */
  countByStatus(): Record<PetStatus, number>;
  /** The same object for the same query until the read model changes: never modify it. */
  page(query: { readonly status?: PetStatus; readonly after?: number; readonly limit: number }): {
    readonly pets: readonly VersionedPet[];
    readonly hasMore: boolean;
  };
  /** Calls `listener` with every change from now on, in store order; returns the unsubscription. */
  onChange(listener: (change: PetChange) => void): () => void;
  /** Resolves once the read model includes the event at this position. */
  waitFor(position: bigint): Promise<void>;
};

export type ApiKeyReadModel = {
  byId(keyId: string): ApiKey | undefined;
  /** The key that a secret of this SHA-256 may authenticate, if any (see `acceptsSecret`). */
  bySecretHash(secretHash: string): ApiKey | undefined;
  all(): ApiKey[];
  /** Resolves once the read model includes the event at this position. */
  waitFor(position: bigint): Promise<void>;
};

export type OrderReadModel = {
  getOrder(id: number): VersionedOrder | undefined;
  /** Orders in ascending id order; only those `owner` placed when it is given. */
  page(query: {
    readonly owner?: string;
    readonly status?: OrderStatus;
    readonly after?: number;
    readonly limit: number;
  }): { orders: VersionedOrder[]; hasMore: boolean };
  /** Calls `listener` with every order placed or changed from now on, in store order, with the change's position. */
  onChange(listener: (order: VersionedOrder, position: bigint) => void): () => void;
  /** Resolves once the read model includes the event at this position. */
  waitFor(position: bigint): Promise<void>;
};

/** A moment in the store's past: a store position, or a time (each pet as of its last event then). */
export type AsOf = { readonly position: bigint } | { readonly timeMs: number };

/**
 * A page of the catalogue as of a time reads at most this many versions of pets: where few pets
 * match (an early time, a status few had), the page ends short, even empty, with a cursor past the
 * last pet it read, as the audit feed does. Without the bound one page of a store of 300,000 pets
 * as of its first minute read every version of every pet.
 */
export const AS_OF_SCAN_LIMIT = 10_000;

/** Every version of every pet, with the positions and times in which it held (time travel). */
export type TemporalPetIndex = {
  /** The pet as it was then; undefined when it did not exist yet, or was removed by then. */
  petAsOf(id: number, at: AsOf): VersionedPet | undefined;
  /**
   * The catalogue as it was then, in ascending id order, like the live list. A page that reached the
   * index's scan bound before it filled ends short, even empty, with `scannedTo`: the next page
   * starts after it, not after the page's last pet. The bound is AS_OF_SCAN_LIMIT.
   */
  pageAsOf(query: {
    readonly at: AsOf;
    readonly status?: PetStatus;
    readonly after?: number;
    readonly limit: number;
  }): { pets: VersionedPet[]; hasMore: boolean; scannedTo?: number };
  /** Resolves once the index includes every event up to this position. */
  waitFor(position: bigint): Promise<void>;
};

/** Where this process's read models stand, for waits on a position (X-Min-Position). */
export type ReadModelProgress = {
  /** Position up to which every read model is current; undefined before the first event. */
  readonly checkpoint: bigint | undefined;
  /** Resolves once every read model includes the event at this position. */
  waitFor(position: bigint): Promise<void>;
};

/** A rebuild beside the live read model (see README, "Audit and operations"). */
export type RebuildStatus = {
  readonly state: 'running' | 'done' | 'failed';
  /** Events folded so far. */
  readonly events: number;
  /** Position the new read model includes, and the live one's that it is catching up with (decimal). */
  readonly position: string | null;
  readonly target: string | null;
  readonly eventsPerSecond: number;
  /** Estimated seconds left; null before the first batch. */
  readonly etaSeconds: number | null;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly error?: string;
};

/** A snapshot file as its header describes it. */
export type SnapshotStatus = {
  readonly version: number;
  readonly checkpoint: string;
  readonly savedAt: string;
  readonly ageSeconds: number;
  /**
   * Why a start would not restore this file (corrupted, another store's, a version not served):
   * from the offline status only, which checks the file as a start does. A running server restored
   * or refused its snapshot at its start, and reports the file as it is.
   */
  readonly refused?: string;
};

export type ProjectionStatus = {
  readonly name: string;
  readonly version: number;
  /** Position of the last event the read model includes (decimal); null before the first. */
  readonly checkpoint: string | null;
  /** Events in the store after the checkpoint (counted up to a limit, then `capped`), and the oldest one's age. */
  readonly lag: { readonly events: number; readonly capped: boolean; readonly seconds: number };
  /**
   * The snapshot file the read model is saved to; null when there is none, or when it has no header
   * this code reads (then `unreadableSnapshot` says why).
   */
  readonly snapshot: SnapshotStatus | null;
  /**
   * Why the snapshot file there has no header this code reads (damaged, truncated, not a snapshot),
   * which a start refuses it for; null when there is no file or its header reads. A field of its own
   * rather than nulls inside `snapshot`: within /v1 a change only adds.
   */
  readonly unreadableSnapshot: string | null;
  /** The earlier version whose read model is served until its rebuild is swapped in; null when current. */
  readonly interimFromVersion: number | null;
  /**
   * Types of event this release does not know that the read model passed over (a newer release
   * wrote them), each with the position of its first; empty when none. While any, the read model
   * saves no snapshot and the server is not ready. The offline status, which folds nothing, looks
   * among the events after the checkpoint that the lag counts.
   */
  readonly unknownEvents: readonly { readonly type: string; readonly firstPosition: string }[];
  /** The last rebuild of this process, if any. */
  readonly rebuild: RebuildStatus | null;
};

/** The outcome of comparing a fresh fold with a read model or a snapshot. */
export type Comparison =
  | { readonly result: 'same'; readonly checkpoint: string | null }
  | {
      readonly result: 'different';
      readonly checkpoint: string | null;
      /** Where the first difference is, and the fresh fold's value there against the other's. */
      readonly path: string;
      readonly expected: string;
      readonly actual: string;
    }
  | { readonly result: 'not compared'; readonly reason: string }
  /** A snapshot file that does not check out (truncated, corrupted, foreign): never served. */
  | { readonly result: 'refused'; readonly reason: string };

export type VerifyReport = {
  readonly name: string;
  readonly version: number;
  readonly live: Comparison;
  readonly snapshot: Comparison;
};

/** What operators may do with this process's read models: see them, rebuild one beside itself, verify one. */
export type ReadModelOperations = {
  status(): Promise<ProjectionStatus[]>;
  /** Starts rebuilding a projection's read model, or reports the rebuild already running; 404 for an unknown name. */
  rebuild(name: string): RebuildStatus;
  /** Folds every event afresh and compares with the live read model and the snapshot; 404 for an unknown name. */
  verify(name: string): Promise<VerifyReport>;
};
