import ms from 'ms';
import { type ApiKey, isBanned, isExpired } from '../domain/api-keys.ts';
import { rfc3339TimeMs } from '../shared/calendar-date.ts';
import { UsageError } from './usage-error.ts';

/** The command-line options of `petstore keys`, parsed into what the key commands take. */

export const LIMIT_OPTIONS = { 'per-minute': { type: 'string' }, 'per-day': { type: 'string' } } as const;

export function limitsOf(values: { 'per-minute'?: string; 'per-day'?: string }): {
  perMinute?: number;
  perDay?: number;
} {
  return {
    ...(values['per-minute'] === undefined
      ? {}
      : { perMinute: integer(values['per-minute'], '--per-minute') }),
    ...(values['per-day'] === undefined ? {} : { perDay: integer(values['per-day'], '--per-day') }),
  };
}

function integer(text: string, option: string): number {
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`${option} must be a positive integer`);
  return Number(text);
}

/** `--scopes pets:read,audit:read`: the list as given; the domain judges each scope. */
export function scopesOf(text: string): string[] {
  return text
    .split(',')
    .map((scope) => scope.trim())
    .filter((scope) => scope !== '');
}

/** A duration such as `30d`, `12h`, `90m` or `3600s` (see the `ms` package), in milliseconds. */
export function durationOf(text: string, option: string): number {
  const value = /^\d+(\.\d+)?\s*[a-z]+$/i.test(text.trim()) ? ms(text.trim() as ms.StringValue) : undefined;
  if (value === undefined || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`${option} must be a duration such as 30d, 12h, 90m or 3600s`);
  }
  if (!Number.isInteger(value))
    throw new UsageError(`${option} must be a whole number of milliseconds: ${text.trim()} is ${value} ms`);
  return value;
}

/** `--expires-in 30d` or `--expires-at 2027-01-31T00:00:00Z`, one or neither. */
export function expiryOf(
  values: { 'expires-in'?: string; 'expires-at'?: string },
  now: Date,
): Date | undefined {
  const { 'expires-in': expiresIn, 'expires-at': expiresAt } = values;
  if (expiresIn !== undefined && expiresAt !== undefined) {
    throw new UsageError('give --expires-in or --expires-at, not both');
  }
  if (expiresIn !== undefined) {
    const time = new Date(now.getTime() + durationOf(expiresIn, '--expires-in'));
    if (Number.isNaN(time.getTime()))
      throw new UsageError(`--expires-in ${expiresIn} ends past the last time a date can hold (year 275760)`);
    return time;
  }
  if (expiresAt === undefined) return undefined;
  // The same reading of RFC 3339 as the API's `asOf`.
  const time = new Date(rfc3339TimeMs(expiresAt));
  if (Number.isNaN(time.getTime())) {
    throw new UsageError('--expires-at must be an RFC 3339 time, such as 2027-01-31T00:00:00Z');
  }
  return time;
}

export function status(key: ApiKey, nowMs: number): string {
  if (key.revoked) return 'revoked';
  if (isExpired(key, nowMs)) return `expired at ${new Date(key.expiresAtMs).toISOString()}`;
  if (isBanned(key, nowMs)) return `banned until ${new Date(key.bannedUntilMs).toISOString()}`;
  return 'active';
}

export function describe(key: ApiKey): string {
  const name = key.name ? ` "${key.name}"` : '';
  const scopes = key.scopes === undefined ? 'no scopes yet' : `scopes ${key.scopes.join(',')}`;
  const expiry = key.expiresAtMs === 0 ? '' : `, expires ${new Date(key.expiresAtMs).toISOString()}`;
  return `key ${key.keyId}${name}, plan ${key.plan} (${key.limits.perMinute}/minute, ${key.limits.perDay}/day), ${scopes}${expiry}${key.revoked ? ', revoked' : ''}`;
}
