import { Kind, type ValueNode } from 'graphql';
import { builder } from '../builder.ts';

/**
 * Pet ids and category ids are int64 in the REST contract, but the service never assigns or
 * accepts one above 2^53−1, so that every JSON client reads them exactly. GraphQL `Int` is 32-bit
 * and would reject most of them; `SafeInt` carries exactly the integers from −(2^53−1) to
 * 2^53−1 as JSON numbers. Ranges narrower than that (ids are at least 1) are the application
 * layer's rules, not this scalar's.
 */
export const SafeInt = builder.scalarType('SafeInt', {
  description:
    'An integer from -(2^53-1) to 2^53-1, sent as a JSON number: every value a JavaScript number holds exactly. ' +
    'Pet and category ids use it because GraphQL Int is 32-bit.',
  serialize: (value) => safeInteger(value),
  parseValue: (value) => safeInteger(value),
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.INT) throw new TypeError('SafeInt must be an integer literal.');
    return safeInteger(Number(ast.value));
  },
});

function safeInteger(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new TypeError(`SafeInt must be an integer from -(2^53-1) to 2^53-1; got ${String(value)}.`);
  }
  return value;
}
