import { ValidationError } from '../../shared/errors.ts';

/**
 * Connection cursors are opaque to clients. Inside, a cursor is the id of the last pet seen: the
 * application layer's `after`. Only the encoding lives here; the range rules stay in the query.
 */
const PREFIX = 'pet:';

export function encodeCursor(petId: number): string {
  return Buffer.from(`${PREFIX}${petId}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const digits = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : '';
  if (!/^\d{1,16}$/.test(digits) || encodeCursor(Number(digits)) !== cursor) {
    throw new ValidationError('after must be a cursor returned by this API.', 'after');
  }
  return Number(digits);
}
