import { NotFoundError } from '../shared/errors.ts';
import { ApiKeyRevokedError } from '../shared/auth-errors.ts';
import { type Limits, type Plan, resolveLimits } from './plans.ts';
import { validateFreeText } from './text.ts';

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

export type ApiKeyEvent = ApiKeyIssued | ApiKeyRevoked | ApiKeyPlanChanged | ApiKeyBanned | ApiKeyUnbanned;
export const API_KEY_EVENT_TYPES: ReadonlySet<string> = new Set([
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'ApiKeyPlanChanged',
  'ApiKeyBanned',
  'ApiKeyUnbanned',
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
};

export function isBanned(key: Pick<ApiKey, 'bannedUntilMs'>, nowMs: number): boolean {
  return key.bannedUntilMs > nowMs;
}

export type IssueApiKey = {
  readonly name?: string;
  readonly plan: unknown;
  readonly perMinute?: number;
  readonly perDay?: number;
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
  const { plan, limits } = resolveLimits(command.plan, command);
  const name = validateName(command.name ?? '');
  return { type: 'ApiKeyIssued', data: { ...generated, name, plan, limits, issuedAt: now.toISOString() } };
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

/** A key already banned, revoked or unknown is not banned again (several processes may ask at once). */
export function decideBanApiKey(
  state: ApiKey | undefined,
  keyId: string,
  ban: { readonly seconds: number; readonly reason: string },
  now: Date,
): ApiKeyBanned[] {
  if (state === undefined || state.revoked || isBanned(state, now.getTime())) return [];
  const until = new Date(now.getTime() + ban.seconds * 1000).toISOString();
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
      const { keyId, name, plan, limits, secretHash, issuedAt } = event.data;
      return { keyId, name, plan, limits, secretHash, issuedAt, revoked: false, bannedUntilMs: 0 };
    }
    case 'ApiKeyRevoked':
      return state && { ...state, revoked: true };
    case 'ApiKeyPlanChanged':
      return state && { ...state, plan: event.data.plan, limits: event.data.limits };
    case 'ApiKeyBanned':
      return state && { ...state, bannedUntilMs: Date.parse(event.data.until) };
    case 'ApiKeyUnbanned':
      return state && { ...state, bannedUntilMs: 0 };
  }
}

function existing(state: ApiKey | undefined, keyId: string): ApiKey {
  if (state === undefined) throw new NotFoundError(`No API key ${keyId}.`);
  return state;
}

function validateName(name: string): string {
  return validateFreeText(name, 'name', API_KEY_NAME_MAX_LENGTH);
}
