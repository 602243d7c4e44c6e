import type { ApiKey } from '../../domain/api-keys.ts';
import type { OrderStatus, VersionedOrder } from '../../domain/orders.ts';
import type { PetStatus, VersionedPet } from '../../domain/pets.ts';

/**
 * What the application needs of the read models: the ports that src/read-models implements over
 * the projections of projections/. Every read is synchronous: read models live in memory.
 */

/** A pet created, changed or removed, as the read model has just applied it. */
export type PetChange =
  | { readonly type: 'created' | 'updated'; readonly pet: VersionedPet }
  | { readonly type: 'removed'; readonly id: number; readonly version: number };

export type PetReadModel = {
  /** A live pet; undefined when there is none with this id, or it was removed. */
  getPet(id: number): VersionedPet | undefined;
  /** The last version of a removed pet; undefined when the pet is live or never existed. */
  removedVersion(id: number): number | undefined;
  /** The order that holds the pet, if one does. */
  heldBy(id: number): number | undefined;
  /** How many live pets have each status. */
  countByStatus(): Record<PetStatus, number>;
  page(query: { readonly status?: PetStatus; readonly after?: number; readonly limit: number }): {
    pets: VersionedPet[];
    hasMore: boolean;
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
  /** Calls `listener` with every order placed or changed from now on, in store order. */
  onChange(listener: (order: VersionedOrder) => void): () => void;
  /** Resolves once the read model includes the event at this position. */
  waitFor(position: bigint): Promise<void>;
};

/** A moment in the store's past: a store position, or a time (each pet as of its last event then). */
export type AsOf = { readonly position: bigint } | { readonly timeMs: number };

/** Every version of every pet, with the positions and times in which it held (time travel). */
export type TemporalPetIndex = {
  /** The pet as it was then; undefined when it did not exist yet, or was removed by then. */
  petAsOf(id: number, at: AsOf): VersionedPet | undefined;
  /** The catalogue as it was then, in ascending id order, like the live list. */
  pageAsOf(query: {
    readonly at: AsOf;
    readonly status?: PetStatus;
    readonly after?: number;
    readonly limit: number;
  }): { pets: VersionedPet[]; hasMore: boolean };
  /** Resolves once the index includes every event up to this position. */
  waitFor(position: bigint): Promise<void>;
};
