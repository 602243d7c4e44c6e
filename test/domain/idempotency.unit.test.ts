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
    expect(decideIdempotencyClaim(undefined, 'h1', now)).toEqual({ kind: 'claimable' });
  });

  it('replays the claimed pet for the same request', () => {
    const claim = claimIdempotencyKey(7, 'h1', now, 24 * HOUR).data;
    expect(decideIdempotencyClaim(claim, 'h1', new Date(now.getTime() + HOUR))).toEqual({
      kind: 'replay',
      petId: 7,
    });
  });

  it('refuses the key for a different request', () => {
    const claim = claimIdempotencyKey(7, 'h1', now, 24 * HOUR).data;
    expect(decideIdempotencyClaim(claim, 'h2', now)).toEqual({ kind: 'key_reused' });
  });

  it('lets the key be claimed again once the claim expired', () => {
    const claim = claimIdempotencyKey(7, 'h1', now, 24 * HOUR).data;
    expect(decideIdempotencyClaim(claim, 'h2', new Date(now.getTime() + 24 * HOUR))).toEqual({
      kind: 'claimable',
    });
  });
});

describe('claimIdempotencyKey', () => {
  it('records the pet id, the request hash and the expiry', () => {
    expect(claimIdempotencyKey(7, 'h1', now, 2 * HOUR)).toEqual({
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
});
