import { pagePets, petListProjection, type PetListState } from '../../projections/pet-list.ts';
import type { Pet, PetStatus } from '../domain/pets.ts';
import type { ProjectionRunner } from '../read-models/runner.ts';

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

export function petReadModel(runner: ProjectionRunner<PetListState>): PetReadModel {
  return {
    getPet: (id) => runner.state.byId.get(id),
    page: (query) => pagePets(runner.state, query),
    waitFor: (position) => runner.waitFor(position),
  };
}

export { petListProjection };
