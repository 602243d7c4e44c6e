import { ValidationError } from '../shared/errors.ts';

/** Plans and their request limits, as the interface's Limits table states them. */

export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export type Limits = { readonly perMinute: number; readonly perDay: number };

export const PLAN_LIMITS: Readonly<Record<Exclude<Plan, 'enterprise'>, Limits>> = Object.freeze({
  free: Object.freeze({ perMinute: 60, perDay: 1000 }),
  pro: Object.freeze({ perMinute: 300, perDay: 10_000 }),
  business: Object.freeze({ perMinute: 1000, perDay: 100_000 }),
});

/** Largest custom limit an enterprise key may have: any count a JavaScript number holds exactly. */
export const MAX_CUSTOM_LIMIT = Number.MAX_SAFE_INTEGER;

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

/**
 * The limits of a plan. Enterprise keys must bring their own (per-minute at most per-day); the
 * other plans must not, so that a key's limits always follow its plan's published figures.
 */
export function resolveLimits(plan: unknown, custom: Partial<Limits> = {}): { plan: Plan; limits: Limits } {
  if (!isPlan(plan)) throw new ValidationError(`plan must be one of ${PLANS.join(', ')}.`, 'plan');
  const hasCustom = custom.perMinute !== undefined || custom.perDay !== undefined;
  if (plan !== 'enterprise') {
    if (hasCustom)
      throw new ValidationError(`Custom limits apply to the enterprise plan only, not ${plan}.`, 'plan');
    return { plan, limits: PLAN_LIMITS[plan] };
  }
  const perMinute = validateLimit(custom.perMinute, 'perMinute');
  const perDay = validateLimit(custom.perDay, 'perDay');
  if (perMinute > perDay) throw new ValidationError('perMinute must not exceed perDay.', 'perMinute');
  return { plan, limits: { perMinute, perDay } };
}

function validateLimit(value: number | undefined, field: string): number {
  if (value === undefined) throw new ValidationError(`The enterprise plan needs ${field}.`, field);
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_CUSTOM_LIMIT) {
    throw new ValidationError(`${field} must be an integer from 1 to ${MAX_CUSTOM_LIMIT}.`, field);
  }
  return value;
}
