import { ValidationError } from '../shared/errors.ts';
import { validateFreeText } from './text.ts';

/** Pure pet domain: validation and decisions, no I/O. Time and ids come in as arguments. */

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** Longest accepted pet name, in Unicode code points. */
export const PET_NAME_MAX_LENGTH = 100;

/** Ids are int64 on the wire, and never above 2^53−1 so that every JSON client reads them exactly. */
export const MAX_PET_ID = Number.MAX_SAFE_INTEGER;

export type NewPet = {
  readonly name: string;
  readonly categoryId: number;
  /** Absent when the client gave none: no default status is invented. */
  readonly status?: PetStatus;
};

export type Pet = NewPet & { readonly id: number };

export type CreatePet = { readonly type: 'CreatePet'; readonly data: unknown };

export const PET_CREATED_SCHEMA_VERSION = 1;
export type PetCreated = { readonly type: 'PetCreated'; readonly data: Pet };

export const petStreamName = (id: number): string => `pet-${id}`;

const NEW_PET_FIELDS = new Set(['name', 'categoryId', 'status']);

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

/** The one validator for NewPet, used by every adapter. Throws a ValidationError naming the field. */
export function validateNewPet(input: unknown): NewPet {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('The body must be a JSON object with name and categoryId.');
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
  const name = validateName(record.name);
  const categoryId = validateCategoryId(record.categoryId);
  if (record.status === undefined) return { name, categoryId };
  return { name, categoryId, status: validateStatus(record.status) };
}

/** The one rule for a status, wherever one is given: a body, a filter, a transition. */
export function validateStatus(status: unknown, field = 'status'): PetStatus {
  if (!isPetStatus(status))
    throw new ValidationError(`${field} must be one of ${PET_STATUSES.join(', ')}.`, field);
  return status;
}

function validateName(name: unknown): string {
  if (typeof name !== 'string') throw new ValidationError('name is required and must be a string.', 'name');
  if (name.trim().length === 0) throw new ValidationError('name must not be empty.', 'name');
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

export function decideCreatePet(command: CreatePet, newId: number): PetCreated {
  const pet = validateNewPet(command.data);
  return { type: 'PetCreated', data: { id: newId, ...pet } };
}
