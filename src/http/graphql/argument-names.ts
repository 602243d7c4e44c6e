import { ValidationError } from '../../shared/errors.ts';

/**
 * The application names its parameters as REST does (`limit`, `petId`); a GraphQL client knows
 * only the arguments it sent. Runs `resolve` and renames a ValidationError's `field`, and the
 * parameter name its message starts with, by `names` (application parameter → GraphQL argument),
 * whether `resolve` throws or returns a promise that rejects.
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
  return new ValidationError(starts ? `${argument}${message.slice(field.length)}` : message, argument);
}
