import { pagePets, type PetListState } from '../../projections/pet-list.ts';
import type { PetReadModel } from '../application/ports/read-models.ts';
import type { Pet } from '../domain/pets.ts';
import type { ReadModel } from './read-model.ts';

/** The application's PetReadModel over the pet-list projection's state. */
export function petReadModel(
  readModel: ReadModel<PetListState>,
  waitFor: (position: bigint) => Promise<void>,
): PetReadModel {
  return {
    getPet: (id) => readModel.state.byId.get(id),
    page: (query) => pagePets(readModel.state, query),
    onPetCreated(listener: (pet: Pet) => void) {
      return readModel.onApplied((event) => {
        if (event.type === 'PetCreated') listener(readModel.state.byId.get(event.data.id as number)!);
      });
    },
    waitFor,
  };
}
