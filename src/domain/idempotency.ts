import { createHash } from 'node:crypto';

/**
 * Idempotency keys for creating pets and placing orders. The first request with a key claims it by
 * appending `IdempotencyKeyClaimed` (with the id of what it will create and a hash of its request)
 * to a stream named after the key, expecting that stream not to exist; a concurrent or later
 * request with the same key finds the claim and replays it. Claims expire after a TTL, after which
 * the key may be claimed again. The hash covers what was asked for, so a key used for a pet cannot
 * be replayed as an order: that is a reuse with another request.
 */

/** The field of the claim that names what the request creates: `petId` (as ever) or `orderId`. */
export type ClaimedIdField = 'petId' | 'orderId';

export type IdempotencyKeyClaimed = {
  readonly type: 'IdempotencyKeyClaimed';
  readonly data: {
    readonly petId?: number;
    readonly orderId?: number;
    readonly requestHash: string;
    readonly expiresAt: string;
  };
};

export type IdempotencyClaim = IdempotencyKeyClaimed['data'];

export type ClaimDecision =
  | { readonly kind: 'claimable' }
  | { readonly kind: 'replay'; readonly id: number }
  | { readonly kind: 'key_reused' };

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The stream of a key, scoped to the client that sent it; the key itself is not stored. */
export function idempotencyStreamName(scope: string, key: string): string {
  return `idempotency-${createHash('sha256').update(scope).update('\0').update(key).digest('hex')}`;
}

/** A hash of the request's meaning, not its bytes: key order and spacing do not matter. */
export function requestHash(request: Readonly<Record<string, unknown>>): string {
  const canonical = JSON.stringify(
    Object.keys(request)
      .sort()
      .map((key) => [key, request[key]]),
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/** What a request with this hash may do, given the key's current claim (if any). */
export function decideIdempotencyClaim(
  existing: IdempotencyClaim | undefined,
  field: ClaimedIdField,
  hash: string,
  now: Date,
): ClaimDecision {
  if (existing === undefined || Date.parse(existing.expiresAt) <= now.getTime()) return { kind: 'claimable' };
  const id = existing[field];
  return existing.requestHash === hash && id !== undefined ? { kind: 'replay', id } : { kind: 'key_reused' };
}

export function claimIdempotencyKey(
  field: ClaimedIdField,
  id: number,
  hash: string,
  now: Date,
  ttlMs: number,
): IdempotencyKeyClaimed {
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  return { type: 'IdempotencyKeyClaimed', data: { [field]: id, requestHash: hash, expiresAt } };
}
