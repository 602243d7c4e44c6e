import { MAX_ID } from '../domain/id-blocks.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';

/** The largest id REST's path parameters accept: they are int64 in the OpenAPI document. */
export const INT64_MAX = 2n ** 63n - 1n;

const LARGEST_ASSIGNED = BigInt(MAX_ID);

/**
 * An id as a client may send it (`parameter` names it in the message and the error's `field`):
 * any int64 of at least 1 is well-formed. Ids above 2^53−1 are never assigned, so such a `noun`
 * is simply not found.
 */
export function validateResourceId(id: number | bigint, parameter: string, noun: 'pet' | 'order'): number {
  const wide = typeof id === 'bigint' ? id : Number.isInteger(id) ? BigInt(id) : undefined;
  if (wide === undefined || wide < 1n || wide > INT64_MAX) {
    throw new ValidationError(`${parameter} must be an integer from 1 to ${INT64_MAX}.`, parameter);
  }
  if (wide > LARGEST_ASSIGNED) throw new NotFoundError(`No ${noun} has the id ${wide}.`);
  return Number(wide);
}
