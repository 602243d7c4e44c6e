import { MAX_PET_ID, PetRemovedError, type VersionedPet } from '../../domain/pets.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import type { PetReadModel } from '../ports/read-models.ts';

const INT64_MAX = 2n ** 63n - 1n;
const LARGEST_PET_ID = BigInt(MAX_PET_ID);

/**
 * A pet id as a client may send it: any int64 of at least 1 is well-formed. Ids above 2^53−1 are
 * never assigned, so such a pet is simply not found.
 */
export function validatePetId(id: number | bigint): number {
  const wide = typeof id === 'bigint' ? id : Number.isInteger(id) ? BigInt(id) : undefined;
  if (wide === undefined || wide < 1n || wide > INT64_MAX) {
    throw new ValidationError(`petId must be an integer from 1 to ${INT64_MAX}.`, 'petId');
  }
  if (wide > LARGEST_PET_ID) throw new NotFoundError(`No pet has the id ${wide}.`);
  return Number(wide);
}

/** Gets one live pet with its version: 404 not_found when there is none, 404 pet_removed once removed. */
export function getPetQuery(readModel: PetReadModel) {
  return function getPet(petId: number | bigint): VersionedPet {
    const id = validatePetId(petId);
    const pet = readModel.getPet(id);
    if (pet !== undefined) return pet;
    if (readModel.removedVersion(id) !== undefined) throw new PetRemovedError(id);
    throw new NotFoundError(`No pet has the id ${id}.`);
  };
}
