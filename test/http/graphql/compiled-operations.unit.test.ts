import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Application } from '../../../src/application/index.ts';
import { compiledOperations } from '../../../src/http/graphql/compiled-operations.ts';
import { schema } from '../../../src/http/graphql/index.ts';

/** Remembering and finding never run an operation: no application is needed. */
const operations = (textBudget?: number) =>
  compiledOperations(schema, {
    application: {} as Application,
    closing: new AbortController().signal,
    introspection: false,
    ...(textBudget !== undefined && { textBudget }),
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

  it('bounds what it keeps by the length of the texts: 1,000 characters hold ten texts of 100', () => {
    const compiled = operations(1000);
    const long = (n: number) => queryText(n).padEnd(100, ' ');
    for (let n = 0; n < 30; n++) compiled.remember(long(n), parse(long(n)));
    const kept = Array.from(
      { length: 30 },
      (_, n) => compiled.find(long(n), undefined, undefined) !== undefined,
    );
    expect(kept.flatMap((isKept, n) => (isKept ? [n] : []))).toEqual([
      20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
    ]);
  });

  it('lets the least recently used text go first, not the first remembered', () => {
    const compiled = operations(1000);
    const long = (n: number) => queryText(n).padEnd(100, ' ');
    for (let n = 0; n < 10; n++) compiled.remember(long(n), parse(long(n)));
    compiled.find(long(0), undefined, undefined);
    compiled.remember(long(10), parse(long(10)));
    expect([0, 1].map((n) => compiled.find(long(n), undefined, undefined) !== undefined)).toEqual([
      true,
      false,
    ]);
  });

  it('keeps no text longer than its whole budget', () => {
    const compiled = operations(1000);
    const huge = queryText(0).padEnd(1001, ' ');
    compiled.remember(huge, parse(huge));
    expect(compiled.find(huge, undefined, undefined)).toBeUndefined();
  });
});
