import { PET_STATUSES } from '../../../domain/pets.ts';
import { builder } from '../builder.ts';

/** The same wire values as REST (`available`, `pending`, `sold`), so clients see one vocabulary. */
export const PetStatus = builder.enumType('PetStatus', {
  description: 'Availability of a pet in the store.',
  values: PET_STATUSES,
});
