import { ValidationError } from '../../shared/errors.ts';

/** Store positions travel as decimal strings (they outgrow JSON numbers on KurrentDB). */
const POSITION = /^\d{1,40}$/;

/** A store position a client sent (a query parameter, a header, a GraphQL argument). */
export function parsePosition(value: string | bigint, field: string): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'string' && POSITION.test(value)) return BigInt(value);
  throw new ValidationError(`${field} must be a store position: decimal digits.`, field);
}
