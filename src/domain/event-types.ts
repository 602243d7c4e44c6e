import { API_KEY_EVENT_TYPES } from './api-keys.ts';
import { ORDER_IDS, PET_IDS } from './id-blocks.ts';
import type { IdempotencyKeyClaimed } from './idempotency.ts';
import { ORDER_EVENT_TYPES } from './orders.ts';
import { PET_EVENT_TYPES } from './pets.ts';

/**
 * Every type of event this release writes, and so reads. An event of another type was written by
 * a newer release (or by hand): the read models pass over it, and cannot be right without it.
 */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set<string>([
  ...PET_EVENT_TYPES,
  ...ORDER_EVENT_TYPES,
  ...API_KEY_EVENT_TYPES,
  'IdempotencyKeyClaimed' satisfies IdempotencyKeyClaimed['type'],
  PET_IDS.eventType,
  ORDER_IDS.eventType,
]);
