import { INT64_MAX } from '../../application/resource-id.ts';
import { ValidationError } from '../../shared/errors.ts';

/**
 * The application names its parameters as REST does (`limit`, `petId`); a GraphQL client knows
 * only the arguments it sent. Runs `resolve` and renames a ValidationError's `field`, and the
 * parameter name its message starts with, by `names` (application parameter → GraphQL argument),
 * whether `resolve` throws or returns a promise that rejects. An id's range is restated with
 * GraphQL's bound: the application states REST's (an int64 path parameter), but a GraphQL id is a
 * `SafeInt`, and one above 2^53−1 is refused before it reaches the application.
 */
export function withArgumentNames<T>(names: ReadonlyMap<string, string>, resolve: () => T): T {
  let result: T;
  try {
    result = resolve();
  } catch (error) {
    throw renamed(error, names);
  }
  if (!(result instanceof Promise)) return result;
  return result.catch((error: unknown) => {
    throw renamed(error, names);
  }) as T;
}

function renamed(error: unknown, names: ReadonlyMap<string, string>): unknown {
  if (!(error instanceof ValidationError) || error.field === undefined) return error;
  const { field, message } = error;
  const argument = names.get(field);
  if (argument === undefined) return error;
  const starts = message.startsWith(`${field} `);
  const restated = message.replace(INT64_BOUND, SAFE_INT_BOUND);
  return new ValidationError(starts ? `${argument}${restated.slice(field.length)}` : restated, argument);
}

const INT64_BOUND = ` from 1 to ${INT64_MAX}.`;
const SAFE_INT_BOUND = ` from 1 to ${Number.MAX_SAFE_INTEGER}.`;
