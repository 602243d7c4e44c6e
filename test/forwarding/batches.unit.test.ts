import { afterEach, describe, expect, it, vi } from 'vitest';
import { batches } from '../../src/forwarding/batches.ts';

/** A feed of items that arrive when pushed, like a live subscription. */
function feed<T>(): { push(item: T): void; end(): void; iterable: AsyncIterable<T> } {
  const queue: Array<IteratorResult<T>> = [];
  let wake: (() => void) | undefined;
  const put = (result: IteratorResult<T>) => {
    queue.push(result);
    wake?.();
  };
  return {
    push: (item) => put({ value: item, done: false }),
    end: () => put({ value: undefined, done: true }),
    iterable: {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          return queue.shift()!;
        },
      }),
    },
  };
}

describe('batches of a live feed', () => {
  it('groups what is already available, up to the maximum size, in order', async () => {
    const f = feed<number>();
    for (let i = 1; i <= 5; i += 1) f.push(i);
    f.end();
    const out: number[][] = [];
    for await (const batch of batches(f.iterable, { maxSize: 2, lingerMs: 50, idleMs: 10_000 }))
      out.push(batch);
    expect(out).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('closes a batch when nothing more arrives within the linger time', async () => {
    const f = feed<number>();
    const iterator = batches(f.iterable, { maxSize: 100, lingerMs: 20, idleMs: 10_000 });
    f.push(1);
    f.push(2);
    expect((await iterator.next()).value).toEqual([1, 2]);
    f.push(3);
    expect((await iterator.next()).value).toEqual([3]);
  });

  it('yields an empty batch when the feed stays quiet for the idle time', async () => {
    const f = feed<number>();
    const iterator = batches(f.iterable, { maxSize: 100, lingerMs: 5, idleMs: 20 });
    expect((await iterator.next()).value).toEqual([]);
    f.push(1);
    expect((await iterator.next()).value).toEqual([1]);
  });

  it('sets one timer for a batch of many waiting items, not one per item', async () => {
    const f = feed<number>();
    for (let i = 0; i < 50; i += 1) f.push(i);
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const iterator = batches(f.iterable, { maxSize: 100, lingerMs: 5, idleMs: 10_000 });
    expect((await iterator.next()).value).toHaveLength(50);
    // The idle timer of the first read and the batch's linger timer.
    expect(setTimeoutSpy).toHaveBeenCalledTimes(2);
  });

  it('passes the feed’s failure to the consumer', async () => {
    const f = failingFeed([1], new Error('store unreachable'));
    const iterator = batches(f.iterable, { maxSize: 100, lingerMs: 5, idleMs: 10_000 });
    expect((await iterator.next()).value).toEqual([1]);
    f.fail();
    await expect(iterator.next()).rejects.toThrow('store unreachable');
  });

  it('leaves no unhandled rejection when the consumer stops after a full batch and the feed then fails', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const f = failingFeed([1, 2], new Error('subscription dropped'));
      const consume = async () => {
        for await (const batch of batches(f.iterable, { maxSize: 2, lingerMs: 50, idleMs: 10_000 })) {
          expect(batch).toEqual([1, 2]);
          throw new Error('publish failed');
        }
      };
      await expect(consume()).rejects.toThrow('publish failed');
      f.fail();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});

afterEach(() => vi.restoreAllMocks());

/** A feed that delivers `items`, then a read that rejects with `error` once `fail()` is called. */
function failingFeed<T>(items: T[], error: Error): { fail(): void; iterable: AsyncIterable<T> } {
  const queue = [...items];
  let fail: () => void = () => {};
  const failed = new Promise<never>((_, reject) => (fail = () => reject(error)));
  return {
    fail: () => fail(),
    iterable: {
      [Symbol.asyncIterator]: () => ({
        next: async () => (queue.length > 0 ? { value: queue.shift()!, done: false } : failed),
      }),
    },
  };
}
