/**
 * A value now, or a promise of it later. For hot paths whose in-process implementation answers
 * at once while another (over the network) cannot: awaiting a value that is already there still
 * costs a promise and a turn of the microtask queue on every request.
 */
export type MaybePromise<T> = T | Promise<T>;

/** True for a promise, or any thenable: never taken for a value that is already there. */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** `next(value)`: at once when the value is there, once it resolves otherwise. */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromise(value) ? value.then(next) : next(value);
}
