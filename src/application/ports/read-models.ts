import type { ApiKey } from '../../domain/api-keys.ts';
import type { Pet, PetStatus } from '../../domain/pets.ts';

/**
 * What the application needs of the read models: the ports that src/read-models implements over
 * the projections of projections/. Every read is synchronous: read models live in memory.
 */

export type PetReadModel = {
  getPet(id: number): Pet | undefined;
  page(query: { readonly status?: PetStatus; readonly after?: number; readonly limit: number }): {
    pets: Pet[];
    hasMore: boolean;
  };
  /** Calls `listener` with every pet created from now on, in store order; returns the unsubscription. */
  onPetCreated(listener: (pet: Pet) => void): () => void;
  /** Resolves once the read model includes the event at this position. */
  waitFor(position: bigint): Promise<void>;
};

export type ApiKeyReadModel = {
  byId(keyId: string): ApiKey | undefined;
  /** The key that may authenticate with a secret of this SHA-256, if any. */
  bySecretHash(secretHash: string): ApiKey | undefined;
  all(): ApiKey[];
  /** Resolves once the read model includes the event at this position. */
  waitFor(position: bigint): Promise<void>;
};
