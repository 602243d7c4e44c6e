import { InvalidStatusTransitionError, PetHeldByOrderError, PetRemovedError } from '../../../domain/pets.ts';
import {
  type AppError,
  ERROR_CODES,
  IdempotencyKeyReusedError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from '../../../shared/errors.ts';
import { builder } from '../builder.ts';

/** The service's closed set of error codes, the same strings REST sends in its Error body. */
export const ErrorCode = builder.enumType('ErrorCode', {
  description: 'Machine-readable and stable: the `code` of an Error body, and of `extensions.code`.',
  values: ERROR_CODES,
});

/** Expected failures a client can act on, returned as values (see `createPet`). */
export const ErrorInterface = builder.interfaceRef<AppError>('Error').implement({
  description: 'A failure the client can act on. `code` is the same machine-readable code REST sends.',
  fields: (t) => ({
    code: t.expose('code', { type: ErrorCode }),
    message: t.exposeString('message'),
  }),
});

builder.objectType(ValidationError, {
  name: 'ValidationError',
  description: 'The input broke a rule; `field` names the offending input when there is one.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    field: t.string({ nullable: true, resolve: (error) => error.field ?? null }),
  }),
});

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  description: 'Nothing has this id (code not_found).',
  interfaces: [ErrorInterface],
  fields: () => ({}),
});

builder.objectType(PetRemovedError, {
  name: 'PetRemovedError',
  description: 'The pet was removed (code pet_removed); its history stays in the store.',
  interfaces: [ErrorInterface],
  fields: () => ({}),
});

builder.objectType(PetHeldByOrderError, {
  name: 'PetHeldByOrderError',
  description:
    'An order holds the pet (code pet_held_by_order): complete or cancel the order to change its status or remove it; nothing changed.',
  interfaces: [ErrorInterface],
  fields: () => ({}),
});

builder.objectType(InvalidStatusTransitionError, {
  name: 'InvalidStatusTransitionError',
  description:
    'The status change breaks the transition table (code invalid_status_transition); nothing changed.',
  interfaces: [ErrorInterface],
  fields: () => ({}),
});

builder.objectType(PreconditionFailedError, {
  name: 'PreconditionFailedError',
  description:
    'expectedVersion is not the current version (code precondition_failed): someone changed it first. Read it again, then retry.',
  interfaces: [ErrorInterface],
  fields: () => ({}),
});

builder.objectType(IdempotencyKeyReusedError, {
  name: 'IdempotencyKeyReusedError',
  description:
    'idempotencyKey was used already, with another input (code idempotency_key_reused): use a new key for a new request.',
  interfaces: [ErrorInterface],
  fields: () => ({}),
});
