import { PetRemovedError, type VersionedPet } from '../../domain/pets.ts';
import { NotFoundError } from '../../shared/errors.ts';
import type { PetReadModel } from '../ports/read-models.ts';
import { validateResourceId } from '../resource-id.ts';

/** A pet id as a client may send it (see `validateResourceId`). */
export function validatePetId(id: number | bigint): number {
  return validateResourceId(id, 'petId', 'pet');
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
