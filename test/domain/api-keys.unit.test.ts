import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ApiKey,
  type ApiKeyEvent,
  decideBanApiKey,
  decideChangeApiKeyPlan,
  decideIssueApiKey,
  decideRevokeApiKey,
  decideUnbanApiKey,
  evolveApiKey,
  isBanned,
} from '../../src/domain/api-keys.ts';
import { ApiKeyRevokedError } from '../../src/shared/auth-errors.ts';
import { NotFoundError, ValidationError } from '../../src/shared/errors.ts';

const NOW = new Date('2030-01-15T10:00:05.000Z');
const given = (events: ApiKeyEvent[]): ApiKey | undefined =>
  events.reduce<ApiKey | undefined>(evolveApiKey, undefined);

function issued(keyId = `key_${randomUUID().slice(0, 16)}`) {
  return decideIssueApiKey({ plan: 'free', name: 'ci' }, { keyId, secretHash: 'hash' }, NOW);
}

describe('issuing', () => {
  it('decides ApiKeyIssued with the plan’s limits and the hash, never the secret', () => {
    expect(
      decideIssueApiKey({ plan: 'pro', name: 'shop' }, { keyId: 'key_1', secretHash: 'h' }, NOW),
    ).toEqual({
      type: 'ApiKeyIssued',
      data: {
        keyId: 'key_1',
        name: 'shop',
        plan: 'pro',
        limits: { perMinute: 300, perDay: 10_000 },
        secretHash: 'h',
        issuedAt: '2030-01-15T10:00:05.000Z',
      },
    });
  });

  it('gives an enterprise key its custom limits', () => {
    const event = decideIssueApiKey(
      { plan: 'enterprise', perMinute: 5000, perDay: 2_000_000 },
      { keyId: 'k', secretHash: 'h' },
      NOW,
    );
    expect(event.data.limits).toEqual({ perMinute: 5000, perDay: 2_000_000 });
  });

  it('refuses a name with control characters', () => {
    expect(() =>
      decideIssueApiKey({ plan: 'free', name: 'a\nb' }, { keyId: 'k', secretHash: 'h' }, NOW),
    ).toThrow(ValidationError);
  });

  it('refuses a name with a bidirectional override, by the same rule as pet names', () => {
    expect(() =>
      decideIssueApiKey({ plan: 'free', name: 'ci\u202eexe' }, { keyId: 'k', secretHash: 'h' }, NOW),
    ).toThrow(
      'name must not contain bidirectional overrides or isolates (U+202E RIGHT-TO-LEFT OVERRIDE at character 3).',
    );
  });

  it('keeps a name in NFC', () => {
    const event = decideIssueApiKey(
      { plan: 'free', name: 'Cafe\u0301' },
      { keyId: 'k', secretHash: 'h' },
      NOW,
    );
    expect(event.data.name).toBe('Caf\u00e9');
  });
});

describe('revoking', () => {
  it('decides ApiKeyRevoked for an active key', () => {
    const event = issued();
    expect(decideRevokeApiKey(given([event]), event.data.keyId, NOW)).toEqual([
      { type: 'ApiKeyRevoked', data: { keyId: event.data.keyId, revokedAt: '2030-01-15T10:00:05.000Z' } },
    ]);
  });

  it('decides nothing for a key already revoked', () => {
    const event = issued();
    const [revoked] = decideRevokeApiKey(given([event]), event.data.keyId, NOW);
    expect(decideRevokeApiKey(given([event, revoked!]), event.data.keyId, NOW)).toEqual([]);
  });

  it('refuses an unknown key with NotFoundError', () => {
    expect(() => decideRevokeApiKey(undefined, 'key_unknown', NOW)).toThrow(NotFoundError);
  });
});

describe('changing the plan', () => {
  it('decides ApiKeyPlanChanged with the new plan’s limits', () => {
    const event = issued();
    expect(decideChangeApiKeyPlan(given([event]), event.data.keyId, { plan: 'business' }, NOW)).toEqual([
      {
        type: 'ApiKeyPlanChanged',
        data: {
          keyId: event.data.keyId,
          plan: 'business',
          limits: { perMinute: 1000, perDay: 100_000 },
          changedAt: '2030-01-15T10:00:05.000Z',
        },
      },
    ]);
  });

  it('decides nothing when the plan stays the same', () => {
    const event = issued();
    expect(decideChangeApiKeyPlan(given([event]), event.data.keyId, { plan: 'free' }, NOW)).toEqual([]);
  });

  it('refuses a revoked key with ApiKeyRevokedError', () => {
    const event = issued();
    const [revoked] = decideRevokeApiKey(given([event]), event.data.keyId, NOW);
    expect(() =>
      decideChangeApiKeyPlan(given([event, revoked!]), event.data.keyId, { plan: 'pro' }, NOW),
    ).toThrow(ApiKeyRevokedError);
  });
});

describe('banning', () => {
  it('decides ApiKeyBanned until now plus the ban duration', () => {
    const event = issued();
    expect(decideBanApiKey(given([event]), event.data.keyId, { seconds: 600, reason: 'r' }, NOW)).toEqual([
      {
        type: 'ApiKeyBanned',
        data: {
          keyId: event.data.keyId,
          bannedAt: '2030-01-15T10:00:05.000Z',
          until: '2030-01-15T10:10:05.000Z',
          reason: 'r',
        },
      },
    ]);
  });

  it('decides nothing for a key already banned, so concurrent processes ban once', () => {
    const event = issued();
    const [banned] = decideBanApiKey(given([event]), event.data.keyId, { seconds: 600, reason: 'r' }, NOW);
    expect(
      decideBanApiKey(given([event, banned!]), event.data.keyId, { seconds: 600, reason: 'r' }, NOW),
    ).toEqual([]);
  });

  it('bans again once the previous ban has ended', () => {
    const event = issued();
    const [banned] = decideBanApiKey(given([event]), event.data.keyId, { seconds: 60, reason: 'r' }, NOW);
    const later = new Date(NOW.getTime() + 61_000);
    expect(
      decideBanApiKey(given([event, banned!]), event.data.keyId, { seconds: 60, reason: 'r' }, later),
    ).toHaveLength(1);
  });

  it('lifts a ban with ApiKeyUnbanned, after which the key is not banned', () => {
    const event = issued();
    const [banned] = decideBanApiKey(given([event]), event.data.keyId, { seconds: 600, reason: 'r' }, NOW);
    const [unbanned] = decideUnbanApiKey(given([event, banned!]), event.data.keyId, NOW);
    expect(unbanned!.type).toBe('ApiKeyUnbanned');
    expect(given([event, banned!, unbanned!])!.bannedUntilMs).toBe(0);
  });
});

describe('isBanned', () => {
  it('holds while the ban’s end is in the future, and not from that instant on', () => {
    const key = { bannedUntilMs: NOW.getTime() + 1 };
    expect([isBanned(key, NOW.getTime()), isBanned(key, NOW.getTime() + 1)]).toEqual([true, false]);
  });
});
