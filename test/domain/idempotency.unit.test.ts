import { describe, expect, it } from 'vitest';
import {
  claimIdempotencyKey,
  decideIdempotencyClaim,
  idempotencyStreamName,
  requestHash,
} from '../../src/domain/idempotency.ts';

const now = new Date('2026-03-01T12:00:00.000Z');
const HOUR = 3600_000;

describe('decideIdempotencyClaim', () => {
  it('lets the first request claim the key', () => {
    expect(decideIdempotencyClaim(undefined, 'petId', 'h1', now)).toEqual({ kind: 'claimable' });
  });

  it('replays the claimed pet for the same request', () => {
    const claim = claimIdempotencyKey('petId', 7, 'h1', now, 24 * HOUR).data;
    expect(decideIdempotencyClaim(claim, 'petId', 'h1', new Date(now.getTime() + HOUR))).toEqual({
      kind: 'replay',
      id: 7,
    });
  });

  it('refuses the key for a different request', () => {
    const claim = claimIdempotencyKey('petId', 7, 'h1', now, 24 * HOUR).data;
    expect(decideIdempotencyClaim(claim, 'petId', 'h2', now)).toEqual({ kind: 'key_reused' });
  });

  it('refuses a pet’s key for an order, even with the same hash', () => {
    const claim = claimIdempotencyKey('petId', 7, 'h1', now, 24 * HOUR).data;
    expect(decideIdempotencyClaim(claim, 'orderId', 'h1', now)).toEqual({ kind: 'key_reused' });
  });

  it('lets the key be claimed again once the claim expired', () => {
    const claim = claimIdempotencyKey('petId', 7, 'h1', now, 24 * HOUR).data;
    expect(decideIdempotencyClaim(claim, 'petId', 'h2', new Date(now.getTime() + 24 * HOUR))).toEqual({
      kind: 'claimable',
    });
  });
});

describe('claimIdempotencyKey', () => {
  it('records the order id for an order', () => {
    expect(claimIdempotencyKey('orderId', 9, 'h1', now, HOUR).data).toEqual({
      orderId: 9,
      requestHash: 'h1',
      expiresAt: '2026-03-01T13:00:00.000Z',
    });
  });

  it('records the pet id, the request hash and the expiry', () => {
    expect(claimIdempotencyKey('petId', 7, 'h1', now, 2 * HOUR)).toEqual({
      type: 'IdempotencyKeyClaimed',
      data: { petId: 7, requestHash: 'h1', expiresAt: '2026-03-01T14:00:00.000Z' },
    });
  });
});

describe('requestHash', () => {
  it('ignores the order of fields', () => {
    expect(requestHash({ name: 'Rex', categoryId: 1 })).toBe(requestHash({ categoryId: 1, name: 'Rex' }));
  });

  it('tells different values apart', () => {
    expect(requestHash({ name: 'Rex', categoryId: 1 })).not.toBe(requestHash({ name: 'Rex', categoryId: 2 }));
  });
});

describe('idempotencyStreamName', () => {
  it('scopes keys to their client and does not contain the key', () => {
    const a = idempotencyStreamName('key-a', 'retry-1');
    expect(a).toMatch(/^idempotency-[0-9a-f]{64}$/);
    expect(a).not.toBe(idempotencyStreamName('key-b', 'retry-1'));
  });

  it('keeps a client’s key apart from another client’s key that joins to the same text', () => {
    expect(idempotencyStreamName('key-a', 'b-retry')).not.toBe(idempotencyStreamName('key-ab', '-retry'));
  });
});
