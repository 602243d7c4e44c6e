import { MAX_PET_ID, type Pet } from '../../domain/pets.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import type { PetReadModel } from '../ports/read-models.ts';

const INT64_MAX = 2n ** 63n - 1n;
const LARGEST_PET_ID = BigInt(MAX_PET_ID);

/**
 * Gets one pet. Any int64 of at least 1 is a well-formed id; ids above 2^53−1 are never assigned,
 * so they are simply not found.
 */
export function getPetQuery(readModel: PetReadModel) {
  return function getPet(id: number | bigint): Pet {
    const wide = typeof id === 'bigint' ? id : Number.isInteger(id) ? BigInt(id) : undefined;
    if (wide === undefined || wide < 1n || wide > INT64_MAX) {
      throw new ValidationError(`petId must be an integer from 1 to ${INT64_MAX}.`, 'petId');
    }
    const pet = wide <= LARGEST_PET_ID ? readModel.getPet(Number(wide)) : undefined;
    if (pet === undefined) throw new NotFoundError(`No pet has the id ${wide}.`);
    return pet;
  };
}
