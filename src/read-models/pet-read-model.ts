import { pagePets, type PetListState } from '../../projections/pet-list.ts';
import type { PetChange, PetReadModel } from '../application/ports/read-models.ts';
import { PET_EVENT_TYPES } from '../domain/pets.ts';
import type { ReadModel } from './read-model.ts';

/** The application's PetReadModel over the pet-list projection's state. */
export function petReadModel(
  readModel: ReadModel<PetListState>,
  waitFor: (position: bigint) => Promise<void>,
): PetReadModel {
  return {
    getPet: (id) => readModel.state.byId.get(id),
    removedVersion: (id) => readModel.state.removed.get(id),
    heldBy: (id) => readModel.state.heldBy.get(id),
    countByStatus: () => {
      const { available, pending, sold } = readModel.state.idsByStatus;
      return { available: available.length, pending: pending.length, sold: sold.length };
    },
    page: (query) => pagePets(readModel.state, query),
    onChange(listener: (change: PetChange) => void) {
      return readModel.onApplied((event) => {
        if (!PET_EVENT_TYPES.has(event.type)) return;
        const id = event.data.id as number;
        const pet = readModel.state.byId.get(id);
        const { position } = event;
        if (event.type === 'PetRemoved')
          listener({ type: 'removed', id, version: Number(event.revision), position });
        else if (pet !== undefined && pet.version === Number(event.revision)) {
          listener({ type: event.type === 'PetCreated' ? 'created' : 'updated', pet, position });
        }
      });
    },
    waitFor,
  };
}
