import { decideRemovePet } from '../../domain/pets.ts';
import { validateRemovalReason } from '../../domain/pet-rules.ts';
import type { RequestContext } from '../../shared/context.ts';
import {
  type ChangeOptions,
  changePet,
  type PetChangeResult,
  type PetStreamDependencies,
} from './pet-stream.ts';
import { validatePetId } from '../queries/get-pet.ts';

export type RemovePetOptions = ChangeOptions & { readonly reason?: string };

/**
 * Removes a pet from the catalogue with PetRemoved (and the reason, when one is given). Its events
 * stay in the store: the pet's history outlives it. Removing it again is a 404 pet_removed.
 */
export function removePetCommand(deps: PetStreamDependencies) {
  return function removePet(
    petId: number | bigint,
    context: RequestContext,
    options: RemovePetOptions = {},
  ): Promise<PetChangeResult> {
    const id = validatePetId(petId);
    const reason = validateRemovalReason(options.reason);
    return changePet(deps, id, context, options, (state) => [decideRemovePet(state, id, reason)]);
  };
}
