import { ValidationError } from '../shared/errors.ts';
import { isBlank, validateFreeText } from './text.ts';
import { type NewPet, PET_STATUSES, type PetPatch, type PetStatus } from './pets.ts';

/**
 * The rules of a pet's fields, in one place: a new pet, a patch, a status filter and a removal
 * reason are judged here, whichever adapter they came through.
 */

/** Longest accepted pet name, in Unicode code points. */
export const PET_NAME_MAX_LENGTH = 100;
/** Longest accepted reason for a removal, in Unicode code points. */
export const REMOVAL_REASON_MAX_LENGTH = 200;

const NEW_PET_FIELDS = new Set(['name', 'categoryId', 'status']);

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

/** The one validator for NewPet, used by every adapter. Throws a ValidationError naming the field. */
export function validateNewPet(input: unknown): NewPet {
  const record = petFields(input, 'The body must be a JSON object with name and categoryId.');
  const name = validateName(record.name);
  const categoryId = validateCategoryId(record.categoryId);
  if (record.status === undefined) return { name, categoryId };
  return { name, categoryId, status: validateStatus(record.status) };
}

/**
 * A merge patch of a pet, by the same rules as a new pet: each field it holds must be valid, `null`
 * removes nothing (every field a patch can hold is one a pet keeps), and `id` or any other field
 * is refused.
 */
export function validatePetPatch(input: unknown): PetPatch {
  const record = petFields(
    input,
    'The body must be a JSON object (a merge patch of name, categoryId, status).',
  );
  if (record.name === null || record.categoryId === null || record.status === null) {
    const field = record.name === null ? 'name' : record.categoryId === null ? 'categoryId' : 'status';
    throw new ValidationError(`${field} cannot be removed; give it a value.`, field);
  }
  return {
    ...(record.name !== undefined && { name: validateName(record.name) }),
    ...(record.categoryId !== undefined && { categoryId: validateCategoryId(record.categoryId) }),
    ...(record.status !== undefined && { status: validateStatus(record.status) }),
  };
}

function petFields(input: unknown, notAnObject: string): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError(notAnObject);
  }
  const record = input as Record<string, unknown>;
  for (const field of Object.keys(record)) {
    if (!NEW_PET_FIELDS.has(field)) {
      throw new ValidationError(
        `Field ${field} cannot be set; a pet accepts name, categoryId and status.`,
        field,
      );
    }
  }
  return record;
}

/** The one rule for a status, wherever one is given: a body, a filter, a transition. */
export function validateStatus(status: unknown, field = 'status'): PetStatus {
  if (!isPetStatus(status))
    throw new ValidationError(`${field} must be one of ${PET_STATUSES.join(', ')}.`, field);
  return status;
}

function validateName(name: unknown): string {
  if (typeof name !== 'string') throw new ValidationError('name is required and must be a string.', 'name');
  if (isBlank(name)) throw new ValidationError('name must not be empty.', 'name');
  return validateFreeText(name, 'name', PET_NAME_MAX_LENGTH);
}

function validateCategoryId(categoryId: unknown): number {
  if (categoryId === undefined) throw new ValidationError('categoryId is required.', 'categoryId');
  if (typeof categoryId !== 'number' || !Number.isSafeInteger(categoryId) || categoryId < 1) {
    throw new ValidationError(
      `categoryId must be a positive integer no greater than ${Number.MAX_SAFE_INTEGER}.`,
      'categoryId',
    );
  }
  return categoryId;
}

/** An optional reason given for a removal: free text, at most REMOVAL_REASON_MAX_LENGTH. */
export function validateRemovalReason(reason: unknown): string | undefined {
  return reason === undefined ? undefined : validateFreeText(reason, 'reason', REMOVAL_REASON_MAX_LENGTH);
}
