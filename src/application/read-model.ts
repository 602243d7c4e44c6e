import { pagePets, petListProjection, type PetListState } from '../../projections/pet-list.ts';
import type { Pet, PetStatus } from '../domain/pets.ts';
import type { ReadModel } from '../read-models/read-model.ts';

/** What the queries and commands need of the pet-list read model. */
export type PetReadModel = {
  getPet(id: number): Pet | undefined;
  page(query: { readonly status?: PetStatus; readonly after?: number; readonly limit: number }): {
    pets: Pet[];
    hasMore: boolean;
  };
  /** Resolves once the read model includes the event at this position. */
  waitFor(position: bigint): Promise<void>;
};

export function petReadModel(
  readModel: ReadModel<PetListState>,
  waitFor: (position: bigint) => Promise<void>,
): PetReadModel {
  return {
    getPet: (id) => readModel.state.byId.get(id),
    page: (query) => pagePets(readModel.state, query),
    waitFor,
  };
}

export { petListProjection };
