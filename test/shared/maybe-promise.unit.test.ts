import { expect, it } from 'vitest';
import { andThen, isPromise } from '../../src/shared/maybe-promise.ts';

it('takes a value that is already there for one, not for a promise', () => {
  expect([isPromise(3), isPromise(undefined), isPromise(null), isPromise({ then: 1 })]).toEqual([
    false,
    false,
    false,
    false,
  ]);
});

it('takes any thenable for a promise, not only a native one', () => {
  const thenable = { then: (resolve: (value: number) => void) => resolve(2) };
  expect(isPromise(thenable as unknown as Promise<number>)).toBe(true);
});

it('goes on at once with a value that is already there', () => {
  expect(andThen(2, (value) => value * 10)).toBe(20);
});

it('goes on once a promise resolves', async () => {
  const next = andThen(Promise.resolve(2), (value) => value * 10);
  expect(next).toBeInstanceOf(Promise);
  expect(await next).toBe(20);
});
