import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { ApiKeyRevokedError } from '../shared/auth-errors.ts';
import { type Limits, type Plan, resolveLimits } from './plans.ts';
import { DEFAULT_SCOPES, type Scope, validateScopes } from './scopes.ts';
import { isBlank, validateFreeText } from './text.ts';

/**
 * The API-key aggregate, pure: `decide*` turn a command and the key's state into events, and
 * `evolveApiKey` folds an event into the state. Time, ids and hashes come in as arguments.
 * The secret itself is never in an event: only its SHA-256.
 */

export type ApiKeyIssued = {
  readonly type: 'ApiKeyIssued';
  readonly data: {
    readonly keyId: string;
    readonly name: string;
    readonly plan: Plan;
    readonly limits: Limits;
    readonly secretHash: string;
    readonly issuedAt: string;
    /** Absent on keys issued before scopes existed: see ApiKeyScopesChanged. */
    readonly scopes?: readonly Scope[];
    /** Absent: the key does not expire. */
    readonly expiresAt?: string;
  };
};
export type ApiKeyRevoked = {
  readonly type: 'ApiKeyRevoked';
  readonly data: { readonly keyId: string; readonly revokedAt: string };
};
export type ApiKeyPlanChanged = {
  readonly type: 'ApiKeyPlanChanged';
  readonly data: {
    readonly keyId: string;
    readonly plan: Plan;
    readonly limits: Limits;
    readonly changedAt: string;
  };
};
export type ApiKeyBanned = {
  readonly type: 'ApiKeyBanned';
  readonly data: {
    readonly keyId: string;
    readonly bannedAt: string;
    readonly until: string;
    readonly reason: string;
  };
};
export type ApiKeyUnbanned = {
  readonly type: 'ApiKeyUnbanned';
  readonly data: { readonly keyId: string; readonly unbannedAt: string };
};

export type ApiKeyScopesChanged = {
  readonly type: 'ApiKeyScopesChanged';
  readonly data: {
    readonly keyId: string;
    readonly scopes: readonly Scope[];
    readonly changedAt: string;
    /** Why, when the change was not an operator's: the default given to keys issued before scopes. */
    readonly reason?: string;
  };
};
/** A new secret for the same key; the previous one keeps working until `previousSecretValidUntil`. */
export type ApiKeySecretRotated = {
  readonly type: 'ApiKeySecretRotated';
  readonly data: {
    readonly keyId: string;
    readonly secretHash: string;
    readonly rotatedAt: string;
    readonly previousSecretValidUntil: string;
  };
};

export type ApiKeyEvent =
  | ApiKeyIssued
  | ApiKeyRevoked
  | ApiKeyPlanChanged
  | ApiKeyBanned
  | ApiKeyUnbanned
  | ApiKeyScopesChanged
  | ApiKeySecretRotated;
export const API_KEY_EVENT_TYPES: ReadonlySet<string> = new Set<ApiKeyEvent['type']>([
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'ApiKeyPlanChanged',
  'ApiKeyBanned',
  'ApiKeyUnbanned',
  'ApiKeyScopesChanged',
  'ApiKeySecretRotated',
]);

export type ApiKey = {
  readonly keyId: string;
  readonly name: string;
  readonly plan: Plan;
  readonly limits: Limits;
  readonly secretHash: string;
  readonly issuedAt: string;
  readonly revoked: boolean;
  /** Unix milliseconds; 0 when the key was never banned. Banned while it is in the future: see `isBanned`. */
  readonly bannedUntilMs: number;
  /** Undefined only for a key issued before scopes existed, until it is given the default. */
  readonly scopes: readonly Scope[] | undefined;
  /** Unix milliseconds; 0 when the key never expires. */
  readonly expiresAtMs: number;
  /** The secret a rotation replaced, accepted until `previousSecretValidUntilMs`. */
  readonly previousSecretHash: string | undefined;
  readonly previousSecretValidUntilMs: number;
};

export function isBanned(key: Pick<ApiKey, 'bannedUntilMs'>, nowMs: number): boolean {
  return key.bannedUntilMs > nowMs;
}

export function isExpired(key: Pick<ApiKey, 'expiresAtMs'>, nowMs: number): boolean {
  return key.expiresAtMs !== 0 && key.expiresAtMs <= nowMs;
}

/** When the grace of the secret a rotation replaced ends, while it still runs; undefined otherwise. */
export function runningGraceEndMs(key: ApiKey | undefined, nowMs: number): number | undefined {
  if (key?.previousSecretHash === undefined || key.previousSecretValidUntilMs <= nowMs) return undefined;
  return key.previousSecretValidUntilMs;
}

/** Whether a secret of this SHA-256 authenticates the key now: its current one, or the one rotated out during its grace. */
export function acceptsSecret(key: ApiKey, secretHash: string, nowMs: number): boolean {
  if (key.revoked) return false;
  if (secretHash === key.secretHash) return true;
  return secretHash === key.previousSecretHash && nowMs < key.previousSecretValidUntilMs;
}

export type IssueApiKey = {
  readonly name?: string;
  readonly plan: unknown;
  readonly perMinute?: number;
  readonly perDay?: number;
  /** The default scopes when absent. */
  readonly scopes?: readonly unknown[];
  /** Never when absent; must be in the future. */
  readonly expiresAt?: Date;
};
export type ChangeApiKeyPlan = {
  readonly plan: unknown;
  readonly perMinute?: number;
  readonly perDay?: number;
};

export const apiKeyStreamName = (keyId: string): string => `apikey-${keyId}`;
export const API_KEY_NAME_MAX_LENGTH = 100;

export function decideIssueApiKey(
  command: IssueApiKey,
  generated: { readonly keyId: string; readonly secretHash: string },
  now: Date,
): ApiKeyIssued {
  const { name, plan, limits, scopes, expiresAt } = validateIssueApiKey(command, now);
  return {
    type: 'ApiKeyIssued',
    data: {
      ...generated,
      name,
      plan,
      limits,
      issuedAt: now.toISOString(),
      scopes,
      ...(expiresAt === undefined ? {} : { expiresAt }),
    },
  };
}

/**
 * The key `decideIssueApiKey` would issue, without its id and secret: throws ValidationError as it
 * would. The CLI asks first, so that a refused key opens (and creates) no store.
 */
export function validateIssueApiKey(command: IssueApiKey, now: Date) {
  const { plan, limits } = resolveLimits(command.plan, command);
  const name = validateName(command.name ?? '');
  const scopes = command.scopes === undefined ? [...DEFAULT_SCOPES] : validateScopes(command.scopes);
  const expiresAt = command.expiresAt === undefined ? undefined : validateExpiry(command.expiresAt, now);
  return { name, plan, limits, scopes, expiresAt };
}

/**
 * The last expiry RFC 3339 can write: past it, `toISOString` gives an expanded year
 * (`+010000-…`), which the events, the audit feed and Kafka would carry and no RFC 3339 parser,
 * this service's included, reads back.
 */
const LAST_EXPIRY_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function validateExpiry(expiresAt: Date, now: Date): string {
  if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()) {
    throw new ValidationError('The expiry must be a time in the future.', 'expiresAt');
  }
  if (expiresAt.getTime() > LAST_EXPIRY_MS) {
    throw new ValidationError('The expiry must be no later than 9999-12-31T23:59:59Z.', 'expiresAt');
  }
  return expiresAt.toISOString();
}

export function decideChangeApiKeyScopes(
  state: ApiKey | undefined,
  keyId: string,
  scopes: readonly unknown[],
  now: Date,
): ApiKeyScopesChanged[] {
  const key = existing(state, keyId);
  if (key.revoked) throw new ApiKeyRevokedError(keyId);
  const valid = validateScopes(scopes);
  if (key.scopes !== undefined && sameScopes(key.scopes, valid)) return [];
  return [{ type: 'ApiKeyScopesChanged', data: { keyId, scopes: valid, changedAt: now.toISOString() } }];
}

/**
 * Keys issued before scopes existed get the default ones through an event of their own (so the
 * guard has no special case, and the audit trail says when and why); a key that has scopes, or
 * that is revoked, gets nothing.
 */
export function decideGrantDefaultScopes(
  state: ApiKey | undefined,
  keyId: string,
  now: Date,
): ApiKeyScopesChanged[] {
  if (state === undefined || state.revoked || state.scopes !== undefined) return [];
  return [
    {
      type: 'ApiKeyScopesChanged',
      data: {
        keyId,
        scopes: [...DEFAULT_SCOPES],
        changedAt: now.toISOString(),
        reason: 'the default scopes, for a key issued before keys had scopes',
      },
    },
  ];
}

/** A new secret for the key (same id, plan, scopes and counters); the old one works `graceMs` more. */
/**
 * The longest an old secret keeps working after a rotation: long enough to roll a change out to
 * every client, short enough that a rotation still retires a leaked secret.
 */
export const MAX_ROTATION_GRACE_MS = 30 * 86_400_000;

export function decideRotateApiKey(
  state: ApiKey | undefined,
  keyId: string,
  secretHash: string,
  graceMs: number,
  now: Date,
): ApiKeySecretRotated {
  const key = existing(state, keyId);
  if (key.revoked) throw new ApiKeyRevokedError(keyId);
  if (!Number.isSafeInteger(graceMs) || graceMs < 0 || graceMs > MAX_ROTATION_GRACE_MS) {
    throw new ValidationError('The grace period must be a duration from zero to 30 days.', 'grace');
  }
  const previousSecretValidUntil = new Date(now.getTime() + graceMs).toISOString();
  return {
    type: 'ApiKeySecretRotated',
    data: { keyId, secretHash, rotatedAt: now.toISOString(), previousSecretValidUntil },
  };
}

function sameScopes(a: readonly Scope[], b: readonly Scope[]): boolean {
  return a.length === b.length && a.every((scope) => b.includes(scope));
}

/** Revoking a revoked key changes nothing. */
export function decideRevokeApiKey(state: ApiKey | undefined, keyId: string, now: Date): ApiKeyRevoked[] {
  const key = existing(state, keyId);
  if (key.revoked) return [];
  return [{ type: 'ApiKeyRevoked', data: { keyId, revokedAt: now.toISOString() } }];
}

export function decideChangeApiKeyPlan(
  state: ApiKey | undefined,
  keyId: string,
  command: ChangeApiKeyPlan,
  now: Date,
): ApiKeyPlanChanged[] {
  const key = existing(state, keyId);
  if (key.revoked) throw new ApiKeyRevokedError(keyId);
  const { plan, limits } = resolveLimits(command.plan, command);
  if (plan === key.plan && limits.perMinute === key.limits.perMinute && limits.perDay === key.limits.perDay)
    return [];
  return [{ type: 'ApiKeyPlanChanged', data: { keyId, plan, limits, changedAt: now.toISOString() } }];
}

/**
 * A ban of `seconds`, lasting at least until `notBeforeMs` when given (the end of the window whose
 * limit the key overran: it is refused until then anyway, and the ban's Retry-After must not send it
 * back sooner), and ending on a whole second, as X-RateLimit-Reset names it. A key already banned,
 * revoked or unknown is not banned again (several processes may ask at once).
 */
export function decideBanApiKey(
  state: ApiKey | undefined,
  keyId: string,
  ban: { readonly seconds: number; readonly reason: string; readonly notBeforeMs?: number },
  now: Date,
): ApiKeyBanned[] {
  if (state === undefined || state.revoked || isBanned(state, now.getTime())) return [];
  const untilMs = Math.ceil(Math.max(now.getTime() + ban.seconds * 1000, ban.notBeforeMs ?? 0) / 1000) * 1000;
  const until = new Date(untilMs).toISOString();
  return [{ type: 'ApiKeyBanned', data: { keyId, bannedAt: now.toISOString(), until, reason: ban.reason } }];
}

export function decideUnbanApiKey(state: ApiKey | undefined, keyId: string, now: Date): ApiKeyUnbanned[] {
  const key = existing(state, keyId);
  if (!isBanned(key, now.getTime())) return [];
  return [{ type: 'ApiKeyUnbanned', data: { keyId, unbannedAt: now.toISOString() } }];
}

export function evolveApiKey(state: ApiKey | undefined, event: ApiKeyEvent): ApiKey | undefined {
  switch (event.type) {
    case 'ApiKeyIssued': {
      const { keyId, name, plan, limits, secretHash, issuedAt, scopes, expiresAt } = event.data;
      return {
        keyId,
        name,
        plan,
        limits,
        secretHash,
        issuedAt,
        revoked: false,
        bannedUntilMs: 0,
        scopes,
        expiresAtMs: expiresAt === undefined ? 0 : Date.parse(expiresAt),
        previousSecretHash: undefined,
        previousSecretValidUntilMs: 0,
      };
    }
    case 'ApiKeyRevoked':
      return state && { ...state, revoked: true };
    case 'ApiKeyPlanChanged':
      return state && { ...state, plan: event.data.plan, limits: event.data.limits };
    case 'ApiKeyBanned':
      return state && { ...state, bannedUntilMs: Date.parse(event.data.until) };
    case 'ApiKeyUnbanned':
      return state && { ...state, bannedUntilMs: 0 };
    case 'ApiKeyScopesChanged':
      return state && { ...state, scopes: event.data.scopes };
    case 'ApiKeySecretRotated':
      return (
        state && {
          ...state,
          secretHash: event.data.secretHash,
          previousSecretHash: state.secretHash,
          previousSecretValidUntilMs: Date.parse(event.data.previousSecretValidUntil),
        }
      );
  }
}

function existing(state: ApiKey | undefined, keyId: string): ApiKey {
  if (state === undefined) throw new NotFoundError(`No API key ${keyId}.`);
  return state;
}

/** No name at all is allowed (the empty default); a name that shows nothing would pass for one. */
function validateName(name: string): string {
  const text = validateFreeText(name, 'name', API_KEY_NAME_MAX_LENGTH);
  if (text !== '' && isBlank(text)) {
    throw new ValidationError('name must show something, or be left out.', 'name');
  }
  return text;
}
