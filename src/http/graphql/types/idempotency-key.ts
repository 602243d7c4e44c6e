import { builder } from '../builder.ts';

/** REST's Idempotency-Key header, as an argument of the mutations that create (createPet, placeOrder). */
export const IDEMPOTENCY_KEY = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) =>
  t.arg.string({
    description:
      'REST’s Idempotency-Key: 1 to 255 visible ASCII characters (a UUID is ideal), scoped to your API ' +
      'key and kept for IDEMPOTENCY_KEY_TTL_HOURS (24 by default). A retry with the same key and ' +
      'input returns the first answer and changes nothing; the same key with another input is an ' +
      'IdempotencyKeyReusedError.',
  });

/** The application names the key as REST's header does; its ValidationError names the argument. */
export const IDEMPOTENCY_ARGUMENTS = new Map([['Idempotency-Key', 'idempotencyKey']]);
