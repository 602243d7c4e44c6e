import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  acceptsSecret,
  type ApiKey,
  type ApiKeyEvent,
  decideBanApiKey,
  decideChangeApiKeyScopes,
  decideGrantDefaultScopes,
  decideRotateApiKey,
  isExpired,
  decideChangeApiKeyPlan,
  decideIssueApiKey,
  decideRevokeApiKey,
  decideUnbanApiKey,
  evolveApiKey,
  isBanned,
} from '../../src/domain/api-keys.ts';
import { grants } from '../../src/domain/scopes.ts';
import { ApiKeyRevokedError } from '../../src/shared/auth-errors.ts';
import { NotFoundError, ValidationError } from '../../src/shared/errors.ts';

const NOW = new Date('2030-01-15T10:00:05.000Z');
const given = (events: ApiKeyEvent[]): ApiKey | undefined =>
  events.reduce<ApiKey | undefined>(evolveApiKey, undefined);

function issued(keyId = `key_${randomUUID().slice(0, 16)}`) {
  return decideIssueApiKey({ plan: 'free', name: 'ci' }, { keyId, secretHash: 'hash' }, NOW);
}

describe('issuing', () => {
  it('decides ApiKeyIssued with the plan’s limits, the default scopes and the hash, never the secret', () => {
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
        scopes: ['pets:read', 'pets:write', 'orders:read', 'orders:write'],
      },
    });
  });

  it('gives a key the scopes asked for, in canonical order and once each', () => {
    const event = decideIssueApiKey(
      { plan: 'free', scopes: ['audit:read', 'pets:read', 'audit:read'] },
      { keyId: 'k', secretHash: 'h' },
      NOW,
    );
    expect(event.data.scopes).toEqual(['pets:read', 'audit:read']);
  });

  it.each([[['pets:read', 'pets:delete']], [[]]])('refuses the scopes %j', (scopes) => {
    expect(() => decideIssueApiKey({ plan: 'free', scopes }, { keyId: 'k', secretHash: 'h' }, NOW)).toThrow(
      ValidationError,
    );
  });

  it('refuses unknown scopes, naming them and the scopes there are', () => {
    const scopes = ['pets:delete', 'pets:read', 'root'];
    expect(() => decideIssueApiKey({ plan: 'free', scopes }, { keyId: 'k', secretHash: 'h' }, NOW)).toThrow(
      new ValidationError(
        'Unknown scope "pets:delete", "root"; the scopes are pets:read, pets:write, orders:read, orders:write, audit:read, admin.',
        'scopes',
      ),
    );
  });

  it('refuses an empty list of scopes, which would make a key that can do nothing', () => {
    expect(() =>
      decideIssueApiKey({ plan: 'free', scopes: [] }, { keyId: 'k', secretHash: 'h' }, NOW),
    ).toThrow(new ValidationError('A key needs at least one scope.', 'scopes'));
  });

  it('records an expiry in the future', () => {
    const expiresAt = new Date('2030-02-14T10:00:05.000Z');
    const event = decideIssueApiKey({ plan: 'free', expiresAt }, { keyId: 'k', secretHash: 'h' }, NOW);
    expect(event.data.expiresAt).toBe('2030-02-14T10:00:05.000Z');
  });

  it('refuses an expiry that is not in the future', () => {
    expect(() =>
      decideIssueApiKey({ plan: 'free', expiresAt: NOW }, { keyId: 'k', secretHash: 'h' }, NOW),
    ).toThrow('The expiry must be a time in the future.');
  });

  it('refuses an expiry past the year 9999, which RFC 3339 cannot write', () => {
    const expiresAt = new Date('9999-12-31T23:59:59-12:00');
    expect(() =>
      decideIssueApiKey({ plan: 'free', expiresAt }, { keyId: 'k', secretHash: 'h' }, NOW),
    ).toThrow('The expiry must be no later than 9999-12-31T23:59:59Z.');
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

  it.each([['   '], ['\u200b']])('refuses a name that shows nothing (%j), as pet names are', (name) => {
    expect(() => decideIssueApiKey({ plan: 'free', name }, { keyId: 'k', secretHash: 'h' }, NOW)).toThrow(
      'name must show something, or be left out.',
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

describe('expiry', () => {
  it('holds a key with an expiry until that instant, and not from then on', () => {
    const expiresAt = new Date(NOW.getTime() + 1000);
    const key = given([
      decideIssueApiKey({ plan: 'free', expiresAt }, { keyId: 'k', secretHash: 'h' }, NOW),
    ])!;
    expect([isExpired(key, NOW.getTime() + 999), isExpired(key, NOW.getTime() + 1000)]).toEqual([
      false,
      true,
    ]);
  });

  it('never expires a key issued without an expiry', () => {
    expect(isExpired(given([issued()])!, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('scopes', () => {
  it('changes a key’s scopes with ApiKeyScopesChanged', () => {
    const key = given([issued('key_s')]);
    const [event] = decideChangeApiKeyScopes(key, 'key_s', ['pets:read', 'admin'], NOW);
    expect(event).toEqual({
      type: 'ApiKeyScopesChanged',
      data: { keyId: 'key_s', scopes: ['pets:read', 'admin'], changedAt: '2030-01-15T10:00:05.000Z' },
    });
    expect(given([issued('key_s'), event!])?.scopes).toEqual(['pets:read', 'admin']);
  });

  it('changes nothing when the key already has exactly those scopes', () => {
    const key = given([issued('key_s')]);
    expect(
      decideChangeApiKeyScopes(key, 'key_s', ['orders:write', 'orders:read', 'pets:write', 'pets:read'], NOW),
    ).toEqual([]);
  });

  it('gives a key issued before scopes existed the default scopes, through an event that says why', () => {
    const legacy: ApiKeyEvent = {
      type: 'ApiKeyIssued',
      data: {
        keyId: 'key_old',
        name: '',
        plan: 'free',
        limits: { perMinute: 60, perDay: 1000 },
        secretHash: 'h',
        issuedAt: '2026-01-01T00:00:00.000Z',
      },
    };
    const [event] = decideGrantDefaultScopes(given([legacy]), 'key_old', NOW);
    expect(event?.data).toEqual({
      keyId: 'key_old',
      scopes: ['pets:read', 'pets:write', 'orders:read', 'orders:write'],
      changedAt: '2030-01-15T10:00:05.000Z',
      reason: 'the default scopes, for a key issued before keys had scopes',
    });
  });

  it('gives nothing to a key that has scopes already', () => {
    expect(decideGrantDefaultScopes(given([issued('key_new')]), 'key_new', NOW)).toEqual([]);
  });

  it.each([
    [['admin'], 'orders:write', true],
    [['pets:read'], 'pets:read', true],
    [['pets:read'], 'pets:write', false],
    [undefined, 'pets:read', false],
  ] as const)('grants %j the scope %s: %s', (scopes, needed, expected) => {
    expect(grants(scopes, needed)).toBe(expected);
  });
});

describe('rotation', () => {
  const rotatedKey = () => {
    const key = given([issued('key_r')]);
    const event = decideRotateApiKey(key, 'key_r', 'new-hash', 60_000, NOW);
    return { event, key: given([issued('key_r'), event])! };
  };

  it('records the new secret’s hash and when the old one stops working', () => {
    expect(rotatedKey().event).toEqual({
      type: 'ApiKeySecretRotated',
      data: {
        keyId: 'key_r',
        secretHash: 'new-hash',
        rotatedAt: '2030-01-15T10:00:05.000Z',
        previousSecretValidUntil: '2030-01-15T10:01:05.000Z',
      },
    });
  });

  it('accepts the new secret, and the old one until its grace ends', () => {
    const { key } = rotatedKey();
    const now = NOW.getTime();
    expect([
      acceptsSecret(key, 'new-hash', now + 120_000),
      acceptsSecret(key, 'hash', now + 59_999),
      acceptsSecret(key, 'hash', now + 60_000),
    ]).toEqual([true, true, false]);
  });

  it('keeps the key’s id, plan and scopes', () => {
    const { key } = rotatedKey();
    expect([key.keyId, key.plan, key.scopes]).toEqual([
      'key_r',
      'free',
      ['pets:read', 'pets:write', 'orders:read', 'orders:write'],
    ]);
  });

  it('refuses a grace longer than 30 days, which would leave a leaked secret working for good', () => {
    const key = given([issued('key_g')]);
    expect(() => decideRotateApiKey(key, 'key_g', 'n', 30 * 86_400_000 + 1, NOW)).toThrow(
      'The grace period must be a duration from zero to 30 days.',
    );
    expect(decideRotateApiKey(key, 'key_g', 'n', 30 * 86_400_000, NOW).data.previousSecretValidUntil).toBe(
      '2030-02-14T10:00:05.000Z',
    );
  });

  it('refuses to rotate a revoked key', () => {
    const revoked = given([issued('key_x'), ...decideRevokeApiKey(given([issued('key_x')]), 'key_x', NOW)]);
    expect(() => decideRotateApiKey(revoked, 'key_x', 'n', 0, NOW)).toThrow(ApiKeyRevokedError);
  });
});
