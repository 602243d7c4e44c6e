import type { PetChange as PetChangeShape } from '../../../application/index.ts';
import { InvalidStatusTransitionError, PetHeldByOrderError, PetRemovedError } from '../../../domain/pets.ts';
import { PET_NAME_MAX_LENGTH } from '../../../domain/pet-rules.ts';
import { NotFoundError, PreconditionFailedError, ValidationError } from '../../../shared/errors.ts';
import { withArgumentNames } from '../argument-names.ts';
import { builder } from '../builder.ts';
import { noteStorePosition } from '../store-position.ts';
import { accessWatch } from '../../access-watch.ts';
import { petChanges } from '../../change-streams.ts';
import { RESUME_AFTER } from './resume-after.ts';
import { Pet } from './pet.ts';
import { PetStatus } from './pet-status.ts';
import { SafeInt } from './safe-int.ts';

/** updatePet and removePet, and the petChanged subscription: REST's PATCH and DELETE, field for field. */

const PetPatch = builder.inputType('PetPatch', {
  description:
    'What to change; a field left out (or null: no field can be removed) stays as it is. Status ' +
    'changes follow the transition table ' +
    '(available ⇄ pending, either → sold; sold is final).',
  fields: (t) => ({
    name: t.string({ description: `Not blank, at most ${PET_NAME_MAX_LENGTH} characters.` }),
    categoryId: t.field({ type: SafeInt, description: 'A positive integer.' }),
    status: t.field({ type: PetStatus }),
  }),
});

const RemovedPet = builder.objectRef<{ id: number; version: number }>('RemovedPet').implement({
  description: 'A pet just removed: its id and the version its removal made.',
  fields: (t) => ({ id: t.expose('id', { type: SafeInt }), version: t.exposeInt('version') }),
});

const CHANGE_ERRORS = [NotFoundError, PetRemovedError, PetHeldByOrderError, PreconditionFailedError];
const ID_ARGUMENTS = new Map([
  ['petId', 'id'],
  ['reason', 'reason'],
]);

builder.mutationFields((t) => ({
  updatePet: t.field({
    type: Pet,
    nullable: true,
    authScopes: { scope: 'pets:write' },
    description:
      'Changes a pet (a merge of `input` into it); each kind of change is an event of its own, and a ' +
      'change that changes nothing records nothing. With expectedVersion, only if the pet is at that version.',
    errors: {
      types: [ValidationError, InvalidStatusTransitionError, ...CHANGE_ERRORS],
      union: { name: 'UpdatePetResult' },
    },
    args: {
      id: t.arg({ type: SafeInt, required: true }),
      input: t.arg({ type: PetPatch, required: true }),
      expectedVersion: t.arg.int(),
    },
    resolve: async (_root, { id, input, expectedVersion }, { application, requestContext }) => {
      const patch = Object.fromEntries(Object.entries(input).filter(([, value]) => value != null));
      const { pet } = await withArgumentNames(ID_ARGUMENTS, () =>
        application.updatePet(id, patch, requestContext, expected(expectedVersion)),
      );
      return pet!;
    },
  }),
  removePet: t.field({
    type: RemovedPet,
    nullable: true,
    authScopes: { scope: 'pets:write' },
    description:
      'Removes a pet from the catalogue; its history stays in the store. With expectedVersion, only if ' +
      'the pet is at that version.',
    errors: { types: [ValidationError, ...CHANGE_ERRORS], union: { name: 'RemovePetResult' } },
    args: {
      id: t.arg({ type: SafeInt, required: true }),
      expectedVersion: t.arg.int(),
      reason: t.arg.string({ description: 'Why, for the audit trail: at most 200 characters.' }),
    },
    resolve: async (_root, { id, expectedVersion, reason }, { application, requestContext }) => {
      const { version } = await withArgumentNames(ID_ARGUMENTS, () =>
        application.removePet(id, requestContext, {
          ...expected(expectedVersion),
          ...(reason != null && { reason }),
        }),
      );
      return { id, version };
    },
  }),
}));

function expected(version: number | null | undefined) {
  return version == null ? {} : { expectedVersions: [version] };
}

const PetChangeType = builder.enumType('PetChangeType', {
  values: ['created', 'updated', 'removed'] as const,
});

const PetChange = builder.objectRef<PetChangeShape>('PetChange').implement({
  description: 'A pet created, changed or removed. `pet` is the pet after the change; null once removed.',
  fields: (t) => ({
    type: t.field({
      type: PetChangeType,
      description: 'What happened to the pet.',
      resolve: (change) => change.type,
    }),
    id: t.field({
      type: SafeInt,
      description: 'The pet’s id (not the change’s: a client cache should not key PetChange by it).',
      resolve: (change) => (change.type === 'removed' ? change.id : change.pet.id),
    }),
    version: t.int({
      description: 'The pet’s version that the change made (its removal’s, for removed).',
      resolve: (change) => (change.type === 'removed' ? change.version : change.pet.version),
    }),
    pet: t.field({
      type: Pet,
      nullable: true,
      resolve: (change) => (change.type === 'removed' ? null : change.pet),
    }),
  }),
});

builder.subscriptionFields((t) => ({
  petChanged: t.field({
    type: PetChange,
    authScopes: { scope: 'pets:read' },
    description:
      'Every pet created, changed or removed from the moment of subscribing, in store order. Each event ' +
      'carries its store position in `extensions.storePosition`; to resume after a disconnection, subscribe ' +
      'again with `after` set to the last one received: the changes since are delivered first.',
    args: { after: t.arg.string({ description: RESUME_AFTER }) },
    subscribe: (_root, { after }, { application, closing, req, reply }) =>
      petChanges(application, after, { closing, reply, watch: accessWatch(req, ['pets:read']) }),
    resolve: (change, _args, context) => {
      noteStorePosition(context, change.position);
      return change;
    },
  }),
}));
