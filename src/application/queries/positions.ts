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

/**
 * Where a resumed read starts, as a client sent it: `after`, and a reconnecting EventSource's
 * Last-Event-ID (REST), which wins over the `after` its reconnection repeats.
 */
export type SentStart = { readonly after?: string | bigint; readonly lastEventId?: string | bigint };

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

/** Where a read resumes: after its Last-Event-ID, else its `after`; both checked, `after` first. */
export async function givenAfter(
  store: Pick<EventStore, 'headPosition'>,
  sent: SentStart,
): Promise<bigint | undefined> {
  const after = sent.after === undefined ? undefined : await givenPosition(store, sent.after, 'after');
  if (sent.lastEventId === undefined) return after;
  return givenPosition(store, sent.lastEventId, 'Last-Event-ID');
}
