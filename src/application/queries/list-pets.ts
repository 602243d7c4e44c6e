import type { VersionedPet } from '../../domain/pets.ts';
import { validateStatus } from '../../domain/pet-rules.ts';
import type { PetReadModel } from '../ports/read-models.ts';
import { nextAfter, validateAfter, validateLimit } from './paging.ts';

export { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_LIMIT_MIN } from './paging.ts';

export type ListPetsQuery = {
  readonly limit?: number;
  readonly status?: string;
  /** Return pets whose id is greater than this: the cursor of the next page. */
  readonly after?: number;
};

export type PetsPage = {
  /** In ascending id order. */
  readonly pets: readonly VersionedPet[];
  /** Pass as `after` for the next page; absent on the last page. */
  readonly nextAfter?: number;
};

/**
 * Lists pets in ascending id order: a stable order in which paging never repeats a pet, nor skips
 * one that existed when it began (a pet created meanwhile with an id behind the cursor is not shown).
 */
export function listPetsQuery(readModel: PetReadModel) {
  return function listPets(query: ListPetsQuery = {}): PetsPage {
    const limit = validateLimit(query.limit);
    const status = query.status === undefined ? undefined : validateStatus(query.status);
    const after = validateAfter(query.after, 'a pet');
    const { pets, hasMore } = readModel.page({
      limit,
      ...(status && { status }),
      ...(after !== undefined && { after }),
    });
    const next = nextAfter(pets, hasMore);
    return next === undefined ? { pets } : { pets, nextAfter: next };
  };
}
