import { ValidationError } from '../shared/errors.ts';

/**
 * What a key may do. Each operation needs one scope; `admin` holds them all and, for orders, sees
 * every key's orders instead of only its own.
 */
export const SCOPES = [
  'pets:read',
  'pets:write',
  'orders:read',
  'orders:write',
  'audit:read',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** A new key's scopes unless others are asked for, and those of keys issued before scopes existed. */
export const DEFAULT_SCOPES: readonly Scope[] = Object.freeze([
  'pets:read',
  'pets:write',
  'orders:read',
  'orders:write',
]);

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** Whether a key with these scopes may do what `needed` allows. */
export function grants(scopes: readonly Scope[] | undefined, needed: Scope): boolean {
  if (scopes === undefined) return false;
  return scopes.includes(needed) || scopes.includes('admin');
}

/** A non-empty list of known scopes, without repeats, in the canonical order of SCOPES. */
export function validateScopes(scopes: readonly unknown[]): Scope[] {
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) {
    throw new ValidationError(
      `Unknown scope ${unknown.map((scope) => JSON.stringify(scope)).join(', ')}; the scopes are ${SCOPES.join(', ')}.`,
      'scopes',
    );
  }
  if (scopes.length === 0) throw new ValidationError('A key needs at least one scope.', 'scopes');
  return SCOPES.filter((scope) => scopes.includes(scope));
}
