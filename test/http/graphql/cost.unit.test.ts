import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCost } from '../../../src/http/graphql/cost.ts';

/**
 * The cost model (graphql-armor's weights: a leaf costs 1, a field with a selection 2 plus 1.5 times
 * its children's cost; a `first`/`last` multiplies its field), with the list size read wherever the
 * client gave it.
 */

const PAGE = 'edges { cursor node { id name categoryId status } } pageInfo { hasNextPage endCursor }';
const cost = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  operationCost(parse(query), operationName, variables);

describe('operationCost', () => {
  it('costs the largest page, pets(first: 100) with every field, 3275', () => {
    expect(cost(`{ pets(first: 100) { ${PAGE} } }`)).toBe(3275);
  });

  it('multiplies by a list size given in a variable', () => {
    expect(cost(`query ($n: Int) { pets(first: $n) { ${PAGE} } }`, { n: 100 })).toBe(3275);
  });

  it('multiplies by a variable’s default when the variable is not given', () => {
    expect(cost(`query ($n: Int = 100) { pets(first: $n) { ${PAGE} } }`)).toBe(3275);
  });

  it('counts a size that is not a positive integer, or none, as one', () => {
    expect(cost(`query ($n: Int) { pets(first: $n) { ${PAGE} } }`, { n: 'many' })).toBe(32.75);
    expect(cost(`query ($n: Int) { pets(first: $n) { ${PAGE} } }`, { n: -5 })).toBe(32.75);
    expect(cost(`{ pets { ${PAGE} } }`)).toBe(32.75);
  });

  it('adds aliased lists, each with its own size', () => {
    expect(
      cost(`query ($a: Int, $b: Int) { a: pets(first: $a) { ${PAGE} } b: pets(first: $b) { ${PAGE} } }`, {
        a: 100,
        b: 10,
      }),
    ).toBe(3275 + 327.5);
  });

  it('costs fragments as armor does: a spread 1 plus 1.5 times the fragment', () => {
    const withFragment = `query ($n: Int) { pets(first: $n) { ...page } } fragment page on PetConnection { ${PAGE} }`;
    // The fragment costs 2 + 1.5 × (15.5 + 5) = 32.75; the spread 1 + 1.5 × 32.75 = 50.125.
    expect(cost(withFragment, { n: 10 })).toBe((2 + 1.5 * 50.125) * 10);
  });

  it('costs only the operation that runs', () => {
    const document = `query Small { pets(first: 1) { pageInfo { hasNextPage } } } query Large { pets(first: 100) { ${PAGE} } }`;
    expect(cost(document, {}, 'Small')).toBe(7.25);
    expect(cost(document, {}, 'Large')).toBe(3275);
  });

  it('does not count introspection', () => {
    expect(cost('{ __schema { types { name fields { name } } } }')).toBe(0);
  });
});
