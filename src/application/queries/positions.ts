import { ValidationError } from '../../shared/errors.ts';
import type { EventStore } from '../ports/event-store.ts';

/** Store positions travel as decimal strings (they outgrow JSON numbers on KurrentDB). */
const POSITION = /^\d{1,40}$/;

/** A store position a client sent (a query parameter, a header, a GraphQL argument). */
export function parsePosition(value: string | bigint, field: string): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'string' && POSITION.test(value)) return BigInt(value);
  throw new ValidationError(`${field} must be a store position: decimal digits.`, field);
}

/** A position a client sent, and the name it came under (a REST stream's `Last-Event-ID`): `after` when a string. */
export type SentPosition = string | { readonly value: string; readonly field: string };

/**
 * A position a client sent back, which only this store can have given: one past its last event
 * (a corrupted cursor or Last-Event-ID) is a 400, not a wait or an answer later events would change.
 */
export async function givenPosition(
  store: Pick<EventStore, 'headPosition'>,
  value: string | bigint,
  field: string,
): Promise<bigint> {
  const position = parsePosition(value, field);
  const head = (await store.headPosition()) ?? 0n;
  if (position > head) throw pastTheStore(field, position, head);
  return position;
}

export function pastTheStore(field: string, position: bigint, head: bigint): ValidationError {
  return new ValidationError(
    `${field} ${position} is past the store's last event (${head}): only send positions this service gave.`,
    field,
  );
}
