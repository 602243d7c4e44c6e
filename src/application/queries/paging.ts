import { MAX_ID } from '../../domain/id-blocks.ts';
import { ValidationError } from '../../shared/errors.ts';

/** The paging rules every list shares (pets, orders, events): a limit and an `after` cursor. */

export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 20;

export function validateLimit(limit: number | undefined): number {
  if (limit === undefined) return LIST_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < LIST_LIMIT_MIN || limit > LIST_LIMIT_MAX) {
    throw new ValidationError(
      `limit must be an integer from ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}.`,
      'limit',
    );
  }
  return limit;
}

/** A cursor over ascending ids: the id of the last item of the page before. */
export function validateAfter(after: number | undefined, what: string): number | undefined {
  if (after === undefined) return undefined;
  if (!Number.isSafeInteger(after) || after < 0 || after > MAX_ID) {
    throw new ValidationError(`after must be ${what} id: an integer from 0 to ${MAX_ID}.`, 'after');
  }
  return after;
}

/** The cursor of the next page: the id of this page's last item, when there is more. */
export function nextAfter<T extends { readonly id: number }>(
  items: readonly T[],
  hasMore: boolean,
): number | undefined {
  return hasMore ? items.at(-1)?.id : undefined;
}
