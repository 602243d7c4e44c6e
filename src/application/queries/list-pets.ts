import { MAX_PET_ID, validateStatus, type VersionedPet } from '../../domain/pets.ts';
import { ValidationError } from '../../shared/errors.ts';
import type { PetReadModel } from '../ports/read-models.ts';

export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 20;

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

/** Lists pets in ascending id order: a stable order in which a page never skips or repeats a pet. */
export function listPetsQuery(readModel: PetReadModel) {
  return function listPets(query: ListPetsQuery = {}): PetsPage {
    const limit = validateLimit(query.limit);
    const status = query.status === undefined ? undefined : validateStatus(query.status);
    const after = validateAfter(query.after);
    const { pets, hasMore } = readModel.page({
      limit,
      ...(status && { status }),
      ...(after !== undefined && { after }),
    });
    const last = pets.at(-1);
    return hasMore && last !== undefined ? { pets, nextAfter: last.id } : { pets };
  };
}

export function validateLimit(limit: number | undefined): number {
  if (limit === undefined) return LIST_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < LIST_LIMIT_MIN || limit > LIST_LIMIT_MAX) {
    throw new ValidationError(
      `limit must be an integer from ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}.`,
      'limit',
    );
  }
  return limit;
}

function validateAfter(after: number | undefined): number | undefined {
  if (after === undefined) return undefined;
  if (!Number.isSafeInteger(after) || after < 0 || after > MAX_PET_ID) {
    throw new ValidationError('after must be a pet id: an integer of at least 0.', 'after');
  }
  return after;
}
