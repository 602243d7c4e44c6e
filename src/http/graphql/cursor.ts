import { ValidationError } from '../../shared/errors.ts';

/**
 * Connection cursors are opaque to clients. Inside, a cursor is the kind of list and the id of the
 * last item seen: the application layer's `after`. Only the encoding lives here; the range rules
 * stay in the query. A cursor of one list is refused by another.
 */
export function encodeCursor(kind: string, id: number): string {
  return Buffer.from(`${kind}:${id}`).toString('base64url');
}

export function decodeCursor(kind: string, cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const digits = text.startsWith(`${kind}:`) ? text.slice(kind.length + 1) : '';
  if (!/^\d{1,16}$/.test(digits) || encodeCursor(kind, Number(digits)) !== cursor) {
    throw new ValidationError('after must be a cursor returned by this API.', 'after');
  }
  return Number(digits);
}
