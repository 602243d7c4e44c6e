import { type AppError, ValidationError } from '../../../errors.ts';
import { builder } from '../builder.ts';

/** Expected failures a client can act on, returned as values (see `createPet`). */
export const ErrorInterface = builder.interfaceRef<AppError>('Error').implement({
  description: 'A failure the client can act on. `code` is the same machine-readable code REST sends.',
  fields: (t) => ({
    code: t.exposeString('code'),
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
