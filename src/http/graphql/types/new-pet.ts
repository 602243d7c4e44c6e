import { PET_NAME_MAX_LENGTH } from '../../../domain/pet-rules.ts';
import { IdempotencyKeyReusedError, ValidationError } from '../../../shared/errors.ts';
import { withArgumentNames } from '../argument-names.ts';
import { builder } from '../builder.ts';
import { IDEMPOTENCY_ARGUMENTS, IDEMPOTENCY_KEY } from './idempotency-key.ts';
import { Pet } from './pet.ts';
import { PetStatus } from './pet-status.ts';
import { SafeInt } from './safe-int.ts';

export const NewPet = builder.inputType('NewPet', {
  description: 'A pet to add. The same rules as the REST body: see ValidationError for what can fail.',
  fields: (t) => ({
    name: t.string({ required: true, description: `Not blank, at most ${PET_NAME_MAX_LENGTH} characters.` }),
    categoryId: t.field({
      type: SafeInt,
      required: true,
      description: 'A positive integer; SafeInt bounds it above.',
    }),
    status: t.field({ type: PetStatus, description: 'Absent: the pet has no status.' }),
  }),
});

builder.mutationFields((t) => ({
  createPet: t.field({
    type: Pet,
    nullable: true,
    authScopes: { scope: 'pets:write' },
    description:
      'Adds a pet. Returns it, or a ValidationError naming the field that broke a rule. With ' +
      'idempotencyKey, a retry returns the pet the first request created.',
    errors: { types: [ValidationError, IdempotencyKeyReusedError], union: { name: 'CreatePetResult' } },
    args: { input: t.arg({ type: NewPet, required: true }), idempotencyKey: IDEMPOTENCY_KEY(t) },
    resolve: async (_root, { input, idempotencyKey }, { application, requestContext }) => {
      const { status, ...required } = input;
      const { pet } = await withArgumentNames(IDEMPOTENCY_ARGUMENTS, () =>
        application.createPet(
          status == null ? required : { ...required, status },
          requestContext,
          idempotencyKey == null ? {} : { idempotencyKey },
        ),
      );
      return pet;
    },
  }),
}));
