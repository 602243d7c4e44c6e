import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Application } from '../../../src/application/index.ts';
import { compiledOperations } from '../../../src/http/graphql/compiled-operations.ts';
import { schema } from '../../../src/http/graphql/index.ts';

/** Remembering and finding never run an operation: no application is needed. */
const operations = () =>
  compiledOperations(schema, {
    application: {} as Application,
    closing: new AbortController().signal,
    introspection: false,
  });

/** Distinct query texts for one small document. */
const queryText = (n: number) => `{ pets(first: 1) { edges { node { id } } } } # ${n}`;

function rememberAll(compiled: ReturnType<typeof operations>, count: number) {
  for (let n = 0; n < count; n++) compiled.remember(queryText(n), parse(queryText(n)));
}

describe('the compiled-operation cache', () => {
  it('keeps 1,024 query texts', () => {
    const compiled = operations();
    rememberAll(compiled, 1024);
    const kept = Array.from({ length: 1024 }, (_, n) => compiled.find(queryText(n), undefined, undefined));
    expect(kept.filter((operation) => operation === undefined)).toHaveLength(0);
  });

  it('drops the oldest query text for the 1,025th', () => {
    const compiled = operations();
    rememberAll(compiled, 1025);
    expect(compiled.find(queryText(0), undefined, undefined)).toBeUndefined();
    expect(compiled.find(queryText(1), undefined, undefined)).toBeDefined();
    expect(compiled.find(queryText(1024), undefined, undefined)).toBeDefined();
  });
});
