import { Kind, type ValueNode } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
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
  // A value the server produced: failing here is a fault, masked and logged.
  serialize: (value) => {
    if (isSafeInteger(value)) return value;
    throw new TypeError(`SafeInt cannot represent ${String(value)}.`);
  },
  // Client input: a GraphQL error (no wrapped cause) is what marks the refusal as deliberate.
  parseValue: (value) => {
    if (isSafeInteger(value)) return value;
    throw createGraphQLError(`${RANGE}; got ${String(value)}.`);
  },
  parseLiteral: (ast: ValueNode) => {
    const value = ast.kind === Kind.INT ? Number(ast.value) : undefined;
    if (isSafeInteger(value)) return value;
    const found = ast.kind === Kind.INT ? ast.value : 'a non-integer literal';
    throw createGraphQLError(`${RANGE}; got ${found}.`, { nodes: ast });
  },
});

const RANGE = 'SafeInt must be an integer from -(2^53-1) to 2^53-1';

function isSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}
