import { pagePets, type PetListState } from '../../projections/pet-list.ts';
import type { PetChange, PetReadModel } from '../application/ports/read-models.ts';
import { PET_EVENT_TYPES } from '../domain/pets.ts';
import type { ReadModel } from './read-model.ts';

/** Pages kept for the read model's current version, at most (past that, it starts again empty). */
const MAX_PAGES = 1_000;

/** The application's PetReadModel over the pet-list projection's state. */
export function petReadModel(
  readModel: ReadModel<PetListState>,
  waitFor: (position: bigint) => Promise<void>,
): PetReadModel {
  // The same page asked for again while nothing changed is the same answer: the same object, so
  // that the HTTP edge can reuse the JSON it made for it without looking at each pet again.
  let pagesOf = -1;
  let pages = new Map<string, ReturnType<PetReadModel['page']>>();
  return {
    getPet: (id) => readModel.state.byId.get(id),
    removedVersion: (id) => readModel.state.removed.get(id),
    heldBy: (id) => readModel.state.heldBy.get(id),
    countByStatus: () => {
      const { available, pending, sold } = readModel.state.idsByStatus;
      return { available: available.length, pending: pending.length, sold: sold.length };
    },
    page(query) {
      if (pagesOf !== readModel.version || pages.size >= MAX_PAGES) {
        pagesOf = readModel.version;
        pages = new Map();
      }
      const slot = `${query.status ?? ''}:${query.after ?? ''}:${query.limit}`;
      let page = pages.get(slot);
      if (page === undefined) {
        page = pagePets(readModel.state, query);
        pages.set(slot, page);
      }
      return page;
    },
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
