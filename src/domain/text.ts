import { ValidationError } from '../shared/errors.ts';

/**
 * Free text a client gives (a note, a reason): a string of at most `maxLength` Unicode code points,
 * without control characters.
 */
export function validateFreeText(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string') throw new ValidationError(`${field} must be text.`, field);
  if ([...value].length > maxLength) {
    throw new ValidationError(`${field} must be at most ${maxLength} characters.`, field);
  }
  if (/\p{Cc}/u.test(value))
    throw new ValidationError(`${field} must not contain control characters.`, field);
  return value;
}
