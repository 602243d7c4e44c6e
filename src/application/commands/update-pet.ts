import { decideUpdatePet } from '../../domain/pets.ts';
import { validatePetPatch } from '../../domain/pet-rules.ts';
import type { RequestContext } from '../../shared/context.ts';
import {
  type ChangeOptions,
  changePet,
  type PetChangeResult,
  type PetStreamDependencies,
} from './pet-stream.ts';
import { validatePetId } from '../queries/get-pet.ts';

/**
 * Applies a JSON merge patch to a pet: each kind of change appends its own event (PetRenamed,
 * PetRecategorised, PetStatusChanged by the transition table); a patch that changes nothing
 * appends nothing. Resolves once this process's read model includes the change.
 */
export function updatePetCommand(deps: PetStreamDependencies) {
  return function updatePet(
    petId: number | bigint,
    patch: unknown,
    context: RequestContext,
    options: ChangeOptions = {},
  ): Promise<PetChangeResult> {
    const id = validatePetId(petId);
    const valid = validatePetPatch(patch);
    return changePet(deps, id, context, options, (state) => decideUpdatePet(state, id, valid));
  };
}
